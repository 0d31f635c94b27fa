import { z } from "zod";
import { toolOk } from "../outcome";
import { defineTool } from "../registry";
import { parseDuckDuckGoHtml, type SearchResult } from "../search/duckduckgo";
import type { ToolServices } from "../services";
import { limitOr, optionalCount } from "./args";

/** One search through the configured backend; any failure is logged and gives []. */
export async function searchWeb(
  services: ToolServices,
  query: string,
  maxResults: number,
  signal: AbortSignal,
): Promise<SearchResult[]> {
  const { limits } = services;
  if (!query.trim()) return [];
  try {
    if (limits.SEARCH_BACKEND === "searxng") {
      if (!limits.SEARXNG_URL) throw new Error("SEARXNG_URL is not set");
      const url = new URL("search", limits.SEARXNG_URL.endsWith("/") ? limits.SEARXNG_URL : `${limits.SEARXNG_URL}/`);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const response = await services.fetch(url.toString(), { signal, headers: { accept: "application/json" } });
      const body = JSON.parse(response.bytes.toString("utf8")) as {
        results?: { title?: string; url?: string; content?: string }[];
      };
      return (body.results ?? [])
        .filter((result) => result.url && result.title)
        .slice(0, maxResults)
        .map((result) => ({ title: result.title ?? "", href: result.url ?? "", body: result.content ?? "" }));
    }
    const response = await services.fetch(limits.DUCKDUCKGO_URL, {
      signal,
      method: "POST",
      body: new URLSearchParams({ q: query }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    const page = parseDuckDuckGoHtml(response.bytes.toString("utf8"), response.status);
    if (page.kind === "rate_limited") {
      console.warn(`[web_search] DuckDuckGo rate limited the search (${page.reason})`);
      return [];
    }
    return page.results.slice(0, maxResults);
  } catch (error) {
    if (signal.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    // DuckDuckGo answers 202/403/429 when it rate-limits; the fetcher reports them as HTTP errors.
    console.warn(`[web_search] search failed: ${reason}`);
    return [];
  }
}

export function createWebSearch(services: ToolServices) {
  return defineTool({
    name: "web_search",
    description: "Search the web. Returns a list of results with title, href (URL) and body (snippet).",
    paged: false,
    schema: z.object({
      query: z.string().describe("What to search for"),
      max_results: optionalCount,
    }),
    async execute(args, context) {
      const max = limitOr(args.max_results, services.limits.SEARCH_MAX_RESULTS);
      const results = await searchWeb(services, args.query, max, context.signal);
      const hits = results.map(({ title, href, body }) => ({ title, url: href, snippet: body }));
      return { ...toolOk(JSON.stringify(results)), results: hits };
    },
  });
}
