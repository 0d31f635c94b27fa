// POST /api/pull as Ollama's PullHandler answers it: NDJSON progress, one layer after another
// ("pulling manifest", then `pulling <12 hex>` lines with digest/total/completed per layer, then
// "verifying sha256 digest", "writing manifest", "success"); a failure is an `{"error"}` line after
// the 200. Closing the request cancels the download; a later pull resumes where it stopped.
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { sendJson, sleep } from "./chat";
import { type FakeModel, findModel, modelSizeBytes, parseModelName } from "./models";

/** What the fake registry offers and how the download behaves, set by tests. */
export interface PullRegistry {
  /** Models the registry has; a pull of any other name fails as a missing manifest. */
  models: FakeModel[];
  /** Progress lines per layer, and the pause before each: the download's speed. */
  chunksPerLayer: number;
  chunkDelayMs: number;
  /** The registry cannot be reached (no DNS, no route). */
  unreachable: boolean;
  /** Free disk: the download fails with ENOSPC once it would write more. Null: plenty. */
  diskFreeBytes: number | null;
}

export const DEFAULT_REGISTRY: PullRegistry = {
  models: [
    {
      name: "phi3:mini",
      family: "phi3",
      parameterSize: "3.8B",
      capabilities: ["completion"],
      contextLength: 131072,
    },
    {
      name: "mistral:7b",
      family: "llama",
      parameterSize: "7.2B",
      capabilities: ["completion", "tools"],
      contextLength: 32768,
    },
  ],
  chunksPerLayer: 3,
  chunkDelayMs: 5,
  unreachable: false,
  diskFreeBytes: null,
};

export interface PullEnv {
  registry(): PullRegistry;
  installed(): FakeModel[];
  install(model: FakeModel): void;
  /** Bytes already downloaded per layer digest (a cancelled pull resumes from here). */
  partial: Map<string, number>;
}

interface Layer {
  digest: string;
  size: number;
}

/** The manifest's blobs as Ollama downloads them: weights, template, licence, params, then the config. */
export function layersOf(model: FakeModel): Layer[] {
  const sizes = [modelSizeBytes(model), 1429, 7711, 96, 561];
  return sizes.map((size, i) => ({
    digest: `sha256:${createHash("sha256").update(`${model.name}#${i}`).digest("hex")}`,
    size,
  }));
}

export async function handlePull(env: PullEnv, raw: string, res: ServerResponse, signal: AbortSignal) {
  if (raw.trim() === "") return sendJson(res, 400, { error: "missing request body" });
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return sendJson(res, 400, { error: "unexpected EOF" });
  }
  const fields = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const requested = typeof fields.model === "string" && fields.model ? fields.model : fields.name;
  const name = typeof requested === "string" ? parseModelName(requested) : undefined;
  if (!name || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name.model)) {
    return sendJson(res, 400, { error: "invalid model name" });
  }
  const registry = env.registry();
  const wanted = String(requested);

  const lines: unknown[] = [];
  const write = (value: unknown) => {
    if (fields.stream === false) return void lines.push(value);
    if (!res.headersSent) res.writeHead(200, { "Content-Type": "application/x-ndjson" });
    res.write(`${JSON.stringify(value)}\n`);
  };
  const finish = (error?: string) => {
    if (fields.stream === false) {
      return error ? sendJson(res, 500, { error }) : sendJson(res, 200, { status: "success" });
    }
    if (error) write({ error });
    res.end();
  };

  write({ status: "pulling manifest" });
  await sleep(registry.chunkDelayMs, signal);
  if (signal.aborted) return;
  const tag = `${name.host}/v2/${name.namespace}/${name.model}/manifests/${name.tag}`;
  if (registry.unreachable) {
    return finish(`pull model manifest: Get "https://${tag}": dial tcp: lookup ${name.host}: no such host`);
  }
  const source = findModel(registry.models, wanted) ?? findModel(env.installed(), wanted);
  if (!source) return finish("pull model manifest: file does not exist");

  let written = 0;
  for (const layer of layersOf(source)) {
    const status = `pulling ${layer.digest.slice(7, 19)}`;
    let completed = env.partial.get(layer.digest) ?? 0;
    const step = Math.ceil(layer.size / Math.max(1, registry.chunksPerLayer));
    do {
      await sleep(registry.chunkDelayMs, signal);
      if (signal.aborted) return;
      const next = Math.min(layer.size, completed + step);
      if (registry.diskFreeBytes !== null && written + (next - completed) > registry.diskFreeBytes) {
        const blob = `/usr/share/ollama/.ollama/models/blobs/sha256-${layer.digest.slice(7)}-partial`;
        return finish(`write ${blob}: no space left on device`);
      }
      written += next - completed;
      completed = next;
      env.partial.set(layer.digest, completed);
      write({ status, digest: layer.digest, total: layer.size, completed });
    } while (completed < layer.size);
  }
  write({ status: "verifying sha256 digest" });
  write({ status: "writing manifest" });
  env.install(structuredClone(source));
  write({ status: "success" });
  finish();
}
