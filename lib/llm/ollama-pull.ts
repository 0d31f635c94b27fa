import { AppError } from "@/lib/errors";
import type { PullEvent, PullLayer } from "@/lib/protocol/pull-events";
import { ndjsonLines, streamChunks } from "@/lib/util/ndjson";
import { connectFailureReason, ollamaHttpError, ollamaUnreachableError, readOllamaErrorText } from "./ollama-errors";

/**
 * Pulling a model through Ollama's streaming `POST /api/pull`: its progress lines become our
 * `PullEvent`s (docs/api.md), with the layers summed and the speed measured here.
 */

interface OllamaPullLine {
  status?: string;
  digest?: string;
  total?: number;
  completed?: number;
  error?: string;
}

/** Ollama's words for a failed pull, as an error the admin can act on. */
export function pullError(model: string, text: string): AppError {
  if (text.includes("file does not exist")) {
    return new AppError(
      "not_found:registry_model",
      `The registry has no model '${model}' (Ollama: ${text}). Check the name on ollama.com/library, e.g. llama3.2 or qwen3:8b.`,
      { details: { model, ollama: text } },
    );
  }
  if (/no space left on device/i.test(text)) {
    return new AppError(
      "upstream:disk_full",
      `The disk Ollama keeps its models on is full (Ollama: ${text}). Free space there, e.g. by deleting a model, then pull again: the download resumes.`,
      { details: { ollama: text } },
    );
  }
  if (/dial tcp|no such host|i\/o timeout|connection refused|network is unreachable|TLS handshake/i.test(text)) {
    return new AppError(
      "upstream:registry_unreachable",
      `Ollama cannot reach the model registry (Ollama: ${text}). Check the network of the machine Ollama runs on.`,
      { retryable: true, details: { ollama: text } },
    );
  }
  return new AppError("upstream:ollama", `Ollama error: ${text}`, { details: { ollama: text } });
}

/** A failed pull's last event: code, message and details as the API's errors carry them. */
function errorEvent(error: AppError): PullEvent {
  return {
    type: "error",
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}

const SPEED_WINDOW_MS = 3000;
const SPEED_MIN_SPAN_MS = 500;

/** Folds Ollama's progress lines into events: layers in the order seen, their sums, the speed. */
export class PullTracker {
  private readonly layers = new Map<string, PullLayer & { resumedAt: number }>();
  private samples: { at: number; bytes: number }[] = [];

  constructor(
    private readonly model: string,
    private readonly now: () => number = Date.now,
  ) {}

  next(line: OllamaPullLine): PullEvent {
    if (typeof line.error === "string") {
      const error = pullError(this.model, line.error);
      return errorEvent(error);
    }
    if (line.status === "success") return { type: "success", model: this.model };
    if (typeof line.digest !== "string" || typeof line.total !== "number") {
      return { type: "status", status: line.status ?? "" };
    }
    const completed = Math.min(line.completed ?? 0, line.total);
    const known = this.layers.get(line.digest);
    // Bytes a layer had when first seen were resumed or cached: they are not this pull's speed.
    this.layers.set(line.digest, {
      digest: line.digest,
      total: line.total,
      completed,
      resumedAt: known?.resumedAt ?? completed,
    });
    const layers = [...this.layers.values()];
    return {
      type: "progress",
      layers: layers.map(({ digest, total, completed: done }) => ({ digest, total, completed: done })),
      completed: layers.reduce((sum, layer) => sum + layer.completed, 0),
      total: layers.reduce((sum, layer) => sum + layer.total, 0),
      bytesPerSecond: this.speed(layers.reduce((sum, layer) => sum + layer.completed - layer.resumedAt, 0)),
    };
  }

  private speed(downloaded: number): number | null {
    const at = this.now();
    this.samples.push({ at, bytes: downloaded });
    this.samples = this.samples.filter((sample) => sample.at >= at - SPEED_WINDOW_MS);
    const first = this.samples[0];
    if (!first || at - first.at < SPEED_MIN_SPAN_MS) return null;
    return Math.round(((downloaded - first.bytes) * 1000) / (at - first.at));
  }
}

/** Ollama's progress lines are short; a longer one is not a progress line. */
const MAX_LINE_BYTES = 64 * 1024;

function parseLine(line: string): OllamaPullLine {
  try {
    return JSON.parse(line) as OllamaPullLine;
  } catch {
    throw new AppError(
      "upstream:ollama",
      `Ollama sent a pull progress line that is not JSON: ${line.trim().slice(0, 200)}`,
    );
  }
}

async function* progressLines(body: AsyncIterable<Uint8Array>): AsyncGenerator<OllamaPullLine> {
  const tooLong = () => new AppError("upstream:ollama", "Ollama sent a pull progress line too long to be one.");
  for await (const line of ndjsonLines(body, { maxLineBytes: MAX_LINE_BYTES, tooLong })) yield parseLine(line);
}

/**
 * Starts the pull and resolves once Ollama accepted it; a refusal (not reachable, an invalid name)
 * throws before anything streams. Aborting `signal` closes the request, which cancels the download.
 */
export async function startPull({
  baseUrl,
  model,
  signal,
  now,
  fetchImpl = fetch,
}: {
  baseUrl: string;
  model: string;
  signal: AbortSignal;
  now?: () => number;
  fetchImpl?: typeof fetch;
}): Promise<AsyncGenerator<PullEvent>> {
  let response: Response;
  try {
    response = await fetchImpl(new URL("/api/pull", baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, stream: true }),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw ollamaUnreachableError(baseUrl, connectFailureReason(error));
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    if (response.status === 400) {
      const reason = readOllamaErrorText(text) ?? text;
      throw new AppError("bad_request:model_name", `Ollama cannot pull '${model}' (${reason}).`, {
        details: { model, ollama: reason },
      });
    }
    throw ollamaHttpError(response.status, text);
  }
  const body = response.body ? progressLines(streamChunks(response.body)) : undefined;
  return (async function* events(): AsyncGenerator<PullEvent> {
    const tracker = new PullTracker(model, now);
    try {
      for await (const line of body ?? []) {
        const event = tracker.next(line);
        yield event;
        if (event.type === "success" || event.type === "error") return;
      }
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof AppError) {
        yield errorEvent(error);
        return;
      }
    }
    yield {
      type: "error",
      code: "upstream:ollama_connection",
      message: "The connection to Ollama broke before the pull finished. Pull again: the download resumes.",
    };
  })();
}

/**
 * Pulls onto several servers, one after another (docs/api.md): a refusal by the first throws as in
 * `startPull`; later events name their server, a failure on any ends the pull, and one `success`
 * comes after the last server's.
 */
export async function startPulls({
  baseUrls,
  ...options
}: Omit<Parameters<typeof startPull>[0], "baseUrl"> & { baseUrls: string[] }): Promise<AsyncGenerator<PullEvent>> {
  const [first = "", ...rest] = baseUrls;
  const opened = await startPull({ ...options, baseUrl: first });
  if (rest.length === 0) return opened;
  return (async function* events(): AsyncGenerator<PullEvent> {
    for (const [index, baseUrl] of baseUrls.entries()) {
      let pull = opened;
      if (index > 0) {
        try {
          pull = await startPull({ ...options, baseUrl });
        } catch (error) {
          if (!(error instanceof AppError) || options.signal.aborted) throw error;
          yield { ...errorEvent(error), server: baseUrl };
          return;
        }
      }
      for await (const event of pull) {
        if (event.type === "success") continue;
        yield { ...event, server: baseUrl };
        if (event.type === "error") return;
      }
    }
    yield { type: "success", model: options.model };
  })();
}
