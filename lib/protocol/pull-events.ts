/**
 * The lines of `POST /api/admin/models/pull` (NDJSON, one event a line): written by the server
 * from Ollama's progress, read by the settings page. Types only, so the browser can import it.
 */
import type { ServerErrorCode } from "@/lib/protocol/error-codes";

export interface PullLayer {
  digest: string;
  /** The layer's size in bytes. */
  total: number;
  completed: number;
}

/** A pull onto several Ollama servers goes to one after another; each event but the last names its server. */
export type PullEvent = PullEventBody & { server?: string };

type PullEventBody =
  /** A phase without bytes: "pulling manifest", "verifying sha256 digest", "writing manifest". */
  | { type: "status"; status: string }
  /**
   * The download so far: every layer seen, in order, and their sums. `bytesPerSecond` is measured
   * over the last seconds on bytes this pull downloaded (not resumed or cached ones); null until known.
   */
  | { type: "progress"; layers: PullLayer[]; completed: number; total: number; bytesPerSecond: number | null }
  | { type: "success"; model: string }
  /** The pull failed after it started; `code` and `details` as in the API's errors (`not_found:registry_model`, …). */
  | { type: "error"; code: ServerErrorCode; message: string; details?: unknown };
