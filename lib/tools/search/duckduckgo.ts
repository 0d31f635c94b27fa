import * as cheerio from "cheerio";

/** Parsing of DuckDuckGo's HTML endpoint. */

export interface SearchResult {
  title: string;
  href: string;
  body: string;
}

export type DuckDuckGoPage = { kind: "results"; results: SearchResult[] } | { kind: "rate_limited"; reason: string };

/** `//duckduckgo.com/l/?uddg=<encoded>&rut=...` → the real URL; other links as they are. */
export function decodeResultLink(href: string): string | null {
  if (!href) return null;
  let url: URL;
  try {
    url = new URL(href, "https://duckduckgo.com/");
  } catch {
    return null;
  }
  const target = url.searchParams.get("uddg");
  if (url.hostname.endsWith("duckduckgo.com") && url.pathname === "/l/" && target) return target;
  if (url.hostname.endsWith("duckduckgo.com")) return null; // ads (y.js) and internal links
  return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : null;
}

const CHALLENGE = /anomaly-modal|challenge-form|bots use DuckDuckGo too|Unfortunately, bots|captcha/i;

export function parseDuckDuckGoHtml(html: string, status: number): DuckDuckGoPage {
  if (status === 202 || status === 403 || status === 429) return { kind: "rate_limited", reason: `HTTP ${status}` };
  if (CHALLENGE.test(html)) return { kind: "rate_limited", reason: "challenge page" };
  const $ = cheerio.load(html);
  const results: SearchResult[] = [];
  $(".result").each((_, element) => {
    const result = $(element);
    if (result.is(".result--ad") || result.find(".badge--ad").length > 0) return;
    const link = result.find("a.result__a").first();
    const href = decodeResultLink(link.attr("href") ?? "");
    const title = link.text().replace(/\s+/g, " ").trim();
    if (!href || !title) return;
    const body = result.find(".result__snippet").first().text().replace(/\s+/g, " ").trim();
    results.push({ title, href, body });
  });
  return { kind: "results", results };
}
