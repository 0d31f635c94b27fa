import type { Artifact, MemoryNote, ReadSource, SearchHit } from "@/lib/protocol/run-events";
import type { ToolErrorKind } from "@/lib/protocol/tool-failures";
import { formatPageInfo, type PageInfo, type SourcePages } from "./page-info";

/**
 * What a tool call came to, as data: a result, or a failure with its kind. Tools, the registry
 * and the engine pass outcomes on; `renderObservation` is the one place that turns an outcome
 * into the text the model reads. Nothing tells a failure by how its text begins.
 */

export type { ToolErrorKind };

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
      /** pdf_to_text: the PDF pages this text comes from, the last window's too (the footer names them only when more follows). */
      pages?: SourcePages;
      /** A file the tool made, previewed in the UI; the model reads a notice naming it instead of `output`. */
      artifact?: Artifact;
      /** The page or file the text was read from: a source the answer can cite. */
      source?: ReadSource;
      /** A search's results as data, for the UI (the model reads `output`). */
      results?: SearchHit[];
      /** remember: the memory saved or proposed, for the answer's chip. */
      memory?: MemoryNote;
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
