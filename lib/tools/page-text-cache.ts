import { LRUCache } from "lru-cache";
import type { Config } from "@/lib/env-config";
import type { ExtractedPage } from "./html-text";

/**
 * Extracted text, kept so a continuation reads on without fetching and extracting again: fetched
 * pages (an entry lives as long as the tokens that point into it, PAGINATION_TOKEN_TTL from its
 * fetch) and attached files' text (by content, no expiry). Beyond the size bound, and the entry
 * bound when there is one, the least recently read goes first (`lru-cache`).
 */
export class PageTextCache<T extends { text: string } = ExtractedPage> {
  readonly #entries: LRUCache<string, T>;

  constructor(bounds: { bytes: number; entries?: number; ttlSeconds?: number }, now: () => number = Date.now) {
    const { entries, ttlSeconds } = bounds;
    this.#entries = new LRUCache<string, T>({
      // UTF-16: two bytes a character; an empty text still takes its place.
      maxSize: Math.max(1, Math.floor(bounds.bytes / 2)),
      sizeCalculation: (page) => Math.max(1, page.text.length),
      ...(entries === undefined || !Number.isFinite(entries) ? {} : { max: entries }),
      // lru-cache keeps an entry through its last millisecond; a token's page is gone at its lifetime's end.
      ...(ttlSeconds === undefined || !Number.isFinite(ttlSeconds) ? {} : { ttl: Math.max(1, ttlSeconds * 1000 - 1) }),
      // Stale is judged by `now` at each read, not by a time cached for a millisecond.
      ttlResolution: 0,
      // Shifted by 1 ms: lru-cache takes a start time of 0 for "no start" (only differences count).
      perf: { now: () => now() + 1 },
    });
  }

  get(key: string): T | null {
    return this.#entries.get(key) ?? null;
  }

  /** Stores `page`; one larger than the whole cache is not kept (and drops what was under `key`). */
  set(key: string, page: T): void {
    this.#entries.set(key, page);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** A cache bounded as configured. */
export const pageTextCacheFor = (
  config: Pick<Config, "PAGE_TEXT_CACHE_ENTRIES" | "PAGE_TEXT_CACHE_MB" | "PAGINATION_TOKEN_TTL">,
) =>
  new PageTextCache({
    entries: config.PAGE_TEXT_CACHE_ENTRIES,
    bytes: config.PAGE_TEXT_CACHE_MB * 1024 * 1024,
    ttlSeconds: config.PAGINATION_TOKEN_TTL,
  });
