import type { Artifact, ReadSource, SearchHit } from "@/lib/protocol/run-events";
import { formatPageInfo, type PageInfo } from "./page-info";

/**
 * What a tool call came to, as data: a result, or a failure with its kind. Tools, the registry
 * and the engine pass outcomes on; `renderObservation` is the one place that turns an outcome
 * into the text the model reads. Nothing tells a failure by how its text begins.
 */

export type ToolErrorKind =
  // The call itself, refused or broken before the tool could answer (the registry's).
  | "unknown_tool"
  /** The arguments are not JSON, not an object, or do not match the tool's schema. */
  | "invalid_args"
  /** The tool threw: a bug, reported to the model instead of ending the run. */
  | "internal"
  /**
   * A paged result over the size limit, withheld so no text is skipped (retry with a smaller
   * max_chars), or a page whose header and footer alone leave no room for text (raise the limit).
   */
  | "result_too_large"
  // What the tools report.
  /** An argument the schema accepts but the tool cannot use (an empty query, an unsupported file type). */
  | "invalid_input"
  /** An empty or malformed URL, or a source that is neither http(s) nor attachment:<id>. */
  | "invalid_url"
  /** The SSRF guard refused the address. */
  | "blocked_url"
  /** A model-chosen URL over MAX_URL_CHARS, refused before any connection (lib/tools/url-leak-guard.ts). */
  | "url_too_long"
  /** A model-chosen URL carrying a long run of the conversation's or its files' text, refused before any connection. */
  | "url_carries_conversation"
  /** The fetch failed: network, TLS, HTTP status, timeout. */
  | "fetch_failed"
  /** The response or file is over the configured size. */
  | "too_large"
  /** Content this tool does not read: media for scrape_url, a PDF for scrape_url, not a PDF for pdf_to_text. */
  | "unsupported_content"
  /** No attachment with that id in this conversation. */
  | "not_found"
  /** The continuation token was not issued by this server for this tool, was altered, or expired. */
  | "invalid_token"
  /** The search backend would not search: DuckDuckGo's rate limit or bot challenge, or SearXNG failing. */
  | "search_unavailable"
  /** The PDF is encrypted or corrupt, or its reader failed. */
  | "unreadable_pdf"
  /** Reading the PDF was stopped by a limit (time, memory, decoded stream size). */
  | "pdf_over_limit"
  /** An MCP tool reported an error (`isError`, a protocol error), or its server is not reachable. */
  | "tool_failed"
  /** An MCP tool did not answer within MCP_CALL_TIMEOUT_S; the call was cancelled on its server. */
  | "timeout"
  /** A call that needed approval was not run: the user denied it, did not answer in time, or the admin forbids the tool. */
  | "not_approved"
  // The engine's.
  /** The call was not run: the run's tool budget is used up. */
  | "not_run";

export interface ToolError {
  kind: ToolErrorKind;
  /** What the model reads: what went wrong and, where it can, what to do instead. */
  message: string;
  /** The same call may succeed if retried as the message says. */
  retryable?: boolean;
}

export type ToolOutcome =
  | {
      ok: true;
      /** The result's text: the whole of it, or this page of it. */
      output: string;
      /** Present when more text follows: the footer's data. */
      paging?: PageInfo;
      /** A file the tool made, previewed in the UI; the model reads a notice naming it instead of `output`. */
      artifact?: Artifact;
      /** The page or file the text was read from: a source the answer can cite. */
      source?: ReadSource;
      /** A search's results as data, for the UI (the model reads `output`). */
      results?: SearchHit[];
    }
  | { ok: false; error: ToolError };

export const toolOk = (output: string, paging?: PageInfo): ToolOutcome =>
  paging ? { ok: true, output, paging } : { ok: true, output };

/** An outcome that read `source`; a failure read nothing. */
export const withSource = (outcome: ToolOutcome, source: ReadSource): ToolOutcome =>
  outcome.ok ? { ...outcome, source } : outcome;

export const toolError = (kind: ToolErrorKind, message: string, { retryable = false } = {}): ToolOutcome => ({
  ok: false,
  error: retryable ? { kind, message, retryable } : { kind, message },
});

/** The registry's refusals read as `{"error": …}` JSON, as in the seed; a tool's failures read as its sentence. */
const AS_JSON: ReadonlySet<ToolErrorKind> = new Set(["unknown_tool", "invalid_args", "internal", "result_too_large"]);

/** The text the model reads for an outcome: the output and its footer, or the failure's message. */
export function renderObservation(outcome: ToolOutcome): string {
  if (outcome.ok) return outcome.paging ? outcome.output + formatPageInfo(outcome.paging) : outcome.output;
  const { kind, message, retryable } = outcome.error;
  if (!AS_JSON.has(kind)) return message;
  return JSON.stringify(retryable ? { error: message, retryable } : { error: message });
}
