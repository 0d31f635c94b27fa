import { z } from "zod";
import { type ToolError, toolOk } from "../outcome";
import { defineTool } from "../registry";
import { FetchError } from "../safe-http";
import { parseDuckDuckGoHtml, type SearchResult } from "../search/duckduckgo";
import type { ToolServices } from "../services";
import { limitOr, optionalCount } from "./args";

/** A search's results, or why the backend gave none: the model and the user are told, not handed `[]`. */
export type SearchOutcome = { ok: true; results: SearchResult[] } | { ok: false; error: ToolError };

const FIX =
  "Wait a minute before searching again, or ask an admin to choose SearXNG as the search backend on the settings page.";

function unavailable(message: string): SearchOutcome {
  return { ok: false, error: { kind: "search_unavailable", message } };
}

/** One search through the configured backend (an empty query searches nothing). */
export async function searchWeb(
  services: ToolServices,
  query: string,
  maxResults: number,
  signal: AbortSignal,
): Promise<SearchOutcome> {
  const { limits } = services;
  if (!query.trim()) return { ok: true, results: [] };
  if (limits.SEARCH_BACKEND === "searxng") {
    if (!limits.SEARXNG_URL) return unavailable("The search backend is SearXNG, but SEARXNG_URL is not set.");
    const url = new URL("search", limits.SEARXNG_URL.endsWith("/") ? limits.SEARXNG_URL : `${limits.SEARXNG_URL}/`);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    try {
      const response = await services.fetch(url.toString(), { signal, headers: { accept: "application/json" } });
      const body = JSON.parse(response.bytes.toString("utf8")) as {
        results?: { title?: string; url?: string; content?: string }[];
      };
      const results = (body.results ?? [])
        .filter((result) => result.url && result.title)
        .slice(0, maxResults)
        .map((result) => ({ title: result.title ?? "", href: result.url ?? "", body: result.content ?? "" }));
      return { ok: true, results };
    } catch (error) {
      if (signal.aborted) throw error;
      return unavailable(
        `SearXNG did not answer the search (${reasonOf(error)}). Check SEARXNG_URL and that its JSON format is enabled.`,
      );
    }
  }
  let status: number;
  let html: string;
  try {
    const response = await services.fetch(limits.DUCKDUCKGO_URL, {
      signal,
      method: "POST",
      body: new URLSearchParams({ q: query }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    status = response.status;
    html = response.bytes.toString("utf8");
  } catch (error) {
    if (signal.aborted) throw error;
    // DuckDuckGo answers 403/429 when it rate-limits; the fetcher reports them as HTTP errors.
    if (!(error instanceof FetchError && (error.status === 403 || error.status === 429))) {
      return unavailable(`The search failed: ${reasonOf(error)}.`);
    }
    status = error.status;
    html = "";
  }
  const page = parseDuckDuckGoHtml(html, status);
  if (page.kind === "rate_limited") {
    return unavailable(`DuckDuckGo refused the search (${page.reason}): it limits automated searches. ${FIX}`);
  }
  return { ok: true, results: page.results.slice(0, maxResults) };
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

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
      const search = await searchWeb(services, args.query, max, context.signal);
      if (!search.ok) return { ok: false, error: search.error };
      const { results } = search;
      const hits = results.map(({ title, href, body }) => ({ title, url: href, snippet: body }));
      return { ...toolOk(JSON.stringify(results)), results: hits };
    },
  });
}
