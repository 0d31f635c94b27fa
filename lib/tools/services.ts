import type { Config } from "@/lib/env-config";
import type { MemoryNote } from "@/lib/protocol/run-events";
import type { PageTextCache } from "./page-text-cache";
import type { FetchedResource, FetchPublicOptions } from "./safe-http";

/** What the built-in tools need from the outside world, passed in so tests can supply their own. */

export interface StoredFileInfo {
  id: string;
  filename: string;
  mime: string;
  size: number;
  sha256: string;
  pageCount: number | null;
  sourceUrl: string | null;
}

/** Why a file was not stored: the conversation holds its most files, or its owner's files their most bytes. */
export type FileQuotaRefusal =
  | { quota: "conversation_files"; limit: number }
  | { quota: "project_files"; limit: number }
  | { quota: "user_storage"; limitBytes: number; usedBytes: number };

export interface FileStore {
  /**
   * A file the conversation may read: its own, its project's, or (when the chat widens its library
   * scope) its owner's; else null — a file out of scope is indistinguishable from a missing one.
   */
  get(conversationId: string, fileId: string): Promise<(StoredFileInfo & { bytes: Buffer }) | null>;
  /**
   * Stores a file fetched by a tool (origin `fetch`) and returns it; the same bytes from the same URL
   * are stored once. A file over the conversation's or its owner's file quota is not stored: which
   * quota, and its limit, instead.
   */
  saveFetched(
    conversationId: string,
    file: { filename: string; mime: string; bytes: Buffer; sourceUrl: string; pageCount: number | null },
  ): Promise<StoredFileInfo | { refused: FileQuotaRefusal }>;
}

/** A passage the library search found (docs/architecture.md, "The library index"). */
export interface LibraryHit {
  fileId: string;
  /** Whose file it is: a conversation's or a project's (one of the two is set). */
  conversationId: string | null;
  projectId: string | null;
  filename: string;
  mime: string;
  /** The passage, as the file's text has it. */
  text: string;
  /** Where it starts in the file's text (what `pdf_to_text` reads of a file that is not a PDF). */
  start: number;
  /** A PDF's page (1-based); null for other files. */
  page: number | null;
  score: number;
}

export interface LibrarySearch {
  /** Ranked passages of the files in the conversation's scope, and the query's terms as searched. */
  search(conversationId: string, query: string, page: { limit: number; offset: number }): Promise<LibraryMatches>;
}

export interface LibraryMatches {
  hits: LibraryHit[];
  /** The query's terms as searched (folded). */
  terms: string[];
  /**
   * More passages match than a search ranks (a common word over a large library): the hits are the
   * best of the newest that match (docs/architecture.md, "The library index").
   */
  limited: boolean;
}

/**
 * Where `remember` keeps what it is told, bound to one run's owner, conversation and answer: saved
 * (or proposed, when the owner asks first), or already known, which stores nothing.
 */
export interface MemoryWriter {
  remember(text: string): Promise<{ status: "known" } | { status: "saved" | "proposed"; note: MemoryNote }>;
}

export type ToolLimits = Pick<
  Config,
  | "SEARCH_BACKEND"
  | "DUCKDUCKGO_URL"
  | "SEARXNG_URL"
  | "SEARCH_MAX_RESULTS"
  | "SCRAPE_MAX_CHARS"
  | "MAX_URL_CHARS"
  | "URL_LEAK_MIN_CHARS"
  | "FETCH_MAX_RESULTS"
  | "FETCH_MAX_CHARS"
  | "MAX_FETCH_MB"
  | "MAX_PDF_PAGES"
  | "PDF_WORKER_MEMORY_MB"
  | "PDF_TIME_BUDGET_S"
  | "PDF_MAX_STREAM_MB"
  | "PDF_MAX_PAGE_ITEMS"
  | "PDF_MAX_PAGE_CHARS"
  | "PDF_WORKER_CONCURRENCY"
  | "PDF_TWO_WORKERS_MIN_PAGES"
  | "PDF_OPEN_DOCUMENTS"
  | "PDF_KEEP_OPEN_S"
  | "DOCX_MAX_INFLATED_MB"
  | "DOCX_WORKER_MEMORY_MB"
  | "DOCX_TIME_BUDGET_S"
  | "DOCX_WORKER_CONCURRENCY"
  | "ATTACHMENT_TEXT_CACHE_MB"
  | "MAX_TOOL_RESULT_CHARS"
  | "PAGINATION_TOKEN_TTL"
>;

export type Fetcher = (
  url: string,
  options: Omit<FetchPublicOptions, "allowPrivate" | "maxBytes"> & { maxBytes?: number },
) => Promise<FetchedResource>;

export interface ToolServices {
  limits: ToolLimits;
  /** HMAC key for continuation tokens. */
  secret: Buffer;
  /** The SSRF-safe fetcher, already bound to FETCH_ALLOW_PRIVATE and the size limit. */
  fetch: Fetcher;
  files: FileStore;
  /** The library search `search_files` asks; absent where there is no database (then the tool says so). */
  library?: LibrarySearch;
  /** Extracted text of fetched pages, for continuation calls. */
  pageCache: PageTextCache;
  now?: () => number;
}
