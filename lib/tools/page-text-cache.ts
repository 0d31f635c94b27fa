import type { Config } from "@/lib/env-config";
import type { ExtractedPage } from "./html-text";

/**
 * Extracted text, kept so a continuation reads on without fetching and extracting again: fetched
 * pages (an entry lives as long as the tokens that point into it, PAGINATION_TOKEN_TTL from its
 * fetch) and attached files' text (by content, no expiry). Beyond the size bound, and the entry
 * bound when there is one, the least recently read goes first.
 */
export class PageTextCache<T extends { text: string } = ExtractedPage> {
  readonly #entries = new Map<string, { page: T; expires: number }>();
  #chars = 0;

  constructor(
    private readonly bounds: { bytes: number; entries?: number; ttlSeconds?: number },
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    this.#delete(key);
    if (entry.expires <= this.now()) return null;
    this.#entries.set(key, entry);
    this.#chars += entry.page.text.length;
    return entry.page;
  }

  set(key: string, page: T): void {
    this.#delete(key);
    const maxChars = this.bounds.bytes / 2; // UTF-16
    if (page.text.length > maxChars) return;
    const { entries = Number.POSITIVE_INFINITY, ttlSeconds = Number.POSITIVE_INFINITY } = this.bounds;
    this.#entries.set(key, { page, expires: this.now() + ttlSeconds * 1000 });
    this.#chars += page.text.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= entries && this.#chars <= maxChars) break;
      this.#delete(oldest);
    }
  }

  #delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#chars -= entry.page.text.length;
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
