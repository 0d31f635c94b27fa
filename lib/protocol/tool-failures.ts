/**
 * The kinds of a tool call's failure, a closed list: tools and the registry fail with one
 * (`lib/tools/outcome.ts`), the engine sends it in the `tool_result` step (`errorKind`), and the
 * tool card words it from `tools.failure.<kind>` in messages/*.json. Framework-free, so the
 * browser can import it.
 */
import { z } from "./zod";

export const toolErrorKinds = [
  // The call itself, refused or broken before the tool could answer (the registry's).
  "unknown_tool",
  /** The arguments are not JSON, not an object, or do not match the tool's schema. */
  "invalid_args",
  /** The tool threw: a bug, reported to the model instead of ending the run. */
  "internal",
  /**
   * A paged result over the size limit, withheld so no text is skipped (retry with a smaller
   * max_chars), or a page whose header and footer alone leave no room for text (raise the limit).
   */
  "result_too_large",
  // What the tools report.
  /** An argument the schema accepts but the tool cannot use (an empty query, an unsupported file type). */
  "invalid_input",
  /** An empty or malformed URL, or a source that is neither http(s) nor attachment:<id>. */
  "invalid_url",
  /** The SSRF guard refused the address. */
  "blocked_url",
  /** A model-chosen URL over MAX_URL_CHARS, refused before any connection (lib/tools/url-leak-guard.ts). */
  "url_too_long",
  /** A model-chosen URL carrying a long run of the conversation's or its files' text, refused before any connection. */
  "url_carries_conversation",
  /** The fetch failed: network, TLS, HTTP status, timeout. */
  "fetch_failed",
  /** The response or file is over the configured size. */
  "too_large",
  /** Content this tool does not read: media for scrape_url, a PDF for scrape_url, not a PDF for pdf_to_text. */
  "unsupported_content",
  /** No attachment with that id in this conversation. */
  "not_found",
  /** The continuation token was not issued by this server for this tool, was altered, or expired. */
  "invalid_token",
  /** The search backend would not search: DuckDuckGo's rate limit or bot challenge, or SearXNG failing. */
  "search_unavailable",
  /** The PDF is encrypted or corrupt, or its reader failed. */
  "unreadable_pdf",
  /** Reading the PDF was stopped by a limit (time, memory, decoded stream size). */
  "pdf_over_limit",
  /** An MCP tool reported an error (`isError`, a protocol error), or its server is not reachable. */
  "tool_failed",
  /** An MCP tool did not answer within MCP_CALL_TIMEOUT_S; the call was cancelled on its server. */
  "timeout",
  /** A call that needed approval was not run: the user denied it, did not answer in time, or the admin forbids the tool. */
  "not_approved",
  // The engine's.
  /** The call was not run: the run's tool budget is used up. */
  "not_run",
] as const;

export const toolErrorKindSchema = z.enum(toolErrorKinds);

export type ToolErrorKind = z.infer<typeof toolErrorKindSchema>;
