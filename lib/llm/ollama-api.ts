import { z } from "zod";
import { AppError, isAbortError } from "@/lib/errors";
import { connectFailureReason, ollamaHttpError, ollamaUnreachableError } from "./ollama-errors";
import type { Abilities } from "./types";

/**
 * Ollama's model-management endpoints (tags, show, ps, version, pull, delete). Over 300 lines on
 * purpose: each endpoint's answer shape sits beside the call that reads it.
 */

export interface ModelInfo {
  name: string;
  family: string | null;
  parameterSize: string | null;
  quantization: string | null;
  sizeBytes: number | null;
  capabilities: string[];
  contextLength: number | null;
  abilities: Abilities;
}

/**
 * What we read of Ollama's answers, checked when they arrive: an answer of another shape (not
 * Ollama, or a release that changed it) is a clear `upstream:ollama` error, not a crash later.
 * Fields Ollama may leave out or send as null are optional; fields we do not read are ignored.
 */
const modelDetailsSchema = z
  .object({
    family: z.string().nullish(),
    parameter_size: z.string().nullish(),
    quantization_level: z.string().nullish(),
  })
  .nullish();

const tagsSchema = z.object({
  models: z.array(z.object({ name: z.string(), size: z.number().nullish(), details: modelDetailsSchema })).nullish(),
});

const psSchema = z.object({
  models: z
    .array(
      z.object({
        name: z.string(),
        size: z.number().nullish(),
        size_vram: z.number().nullish(),
        expires_at: z.string().nullish(),
        context_length: z.number().nullish(),
      }),
    )
    .nullish(),
});

const showSchema = z.object({
  license: z.string().nullish(),
  capabilities: z.array(z.string()).nullish(),
  model_info: z.record(z.string(), z.unknown()).nullish(),
  details: modelDetailsSchema,
});
type ShowResponse = z.infer<typeof showSchema>;

const versionSchema = z.object({ version: z.string().nullish() }).optional();
/** The answer of a request whose body we do not read (delete, unload). */
const anyAnswer = z.unknown();

/** A model Ollama holds in memory now (`/api/ps`). */
export interface LoadedModel {
  name: string;
  sizeBytes: number | null;
  /** How much of it is in GPU memory; the rest is in system RAM. */
  vramBytes: number | null;
  /** When Ollama unloads it (ms since epoch); null for never (keep_alive negative). */
  expiresAt: number | null;
  contextLength: number | null;
}

/** What the settings page shows of one installed model. */
export interface ModelDetails extends ModelInfo {
  license: string | null;
}

export function abilitiesFrom(capabilities: string[]): Abilities {
  return {
    tool_call: capabilities.includes("tools"),
    json_mode: true, // every Ollama model accepts `format`
    thinking: capabilities.includes("thinking"),
    vision: capabilities.includes("vision"),
  };
}

export function contextLengthFrom(modelInfo: Record<string, unknown> | null | undefined): number | null {
  if (!modelInfo) return null;
  const arch = modelInfo["general.architecture"];
  const value = typeof arch === "string" ? modelInfo[`${arch}.context_length`] : undefined;
  return typeof value === "number" && value > 0 ? value : null;
}

const REQUEST_TIMEOUT_MS = 10_000;
const SHOW_CACHE_MS = 5 * 60_000;
const VERSION_TIMEOUT_MS = 3000;
/**
 * How long one answer to `/api/version` stands for Ollama's state. Health is polled (by monitors,
 * by bench:load every 50 ms), and each poll asking Ollama would cost the running streams a little.
 */
export const VERSION_FRESH_MS = 2000;

/** One request shared by everyone who asks while it is under way, and its answer (or failure) for `freshMs` after. */
export class Shared<T> {
  private last: { settledAt: number; value: Promise<T> } | undefined;

  constructor(
    private readonly freshMs: number,
    private readonly load: () => Promise<T>,
  ) {}

  get(): Promise<T> {
    if (this.last && Date.now() - this.last.settledAt < this.freshMs) return this.last.value;
    const current = { settledAt: Number.POSITIVE_INFINITY, value: this.load() };
    const settled = () => {
      current.settledAt = Date.now();
    };
    current.value.then(settled, settled);
    this.last = current;
    return current.value;
  }

  clear(): void {
    this.last = undefined;
  }
}

export class OllamaApi {
  private readonly showCache = new Map<string, { at: number; value: Promise<ShowResponse> }>();
  private readonly versionProbe = new Shared(VERSION_FRESH_MS, () => this.fetchVersion());

  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async request<S extends z.ZodType>(
    path: string,
    schema: S,
    init: RequestInit = {},
    model?: string,
  ): Promise<z.infer<S>> {
    const signal = AbortSignal.any(
      [AbortSignal.timeout(REQUEST_TIMEOUT_MS), init.signal].filter((s): s is AbortSignal => Boolean(s)),
    );
    let response: Response;
    try {
      response = await this.fetchImpl(new URL(path, this.baseUrl), { ...init, signal });
    } catch (error) {
      if (isAbortError(error) && init.signal?.aborted) throw error;
      throw ollamaUnreachableError(this.baseUrl, connectFailureReason(error));
    }
    const text = await response.text();
    if (!response.ok) throw ollamaHttpError(response.status, text, model);
    return this.checked(path, schema, text);
  }

  /** The answer parsed and checked against what we read of it; anything else is `upstream:ollama`. */
  private checked<S extends z.ZodType>(path: string, schema: S, text: string): z.infer<S> {
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw this.malformed(path, `not JSON: ${text.slice(0, 100)}`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      throw this.malformed(path, `${issue?.path.join(".") || "the answer"}: ${issue?.message ?? "unexpected"}`);
    }
    return parsed.data;
  }

  private malformed(path: string, why: string): AppError {
    const ollama = `its answer to ${path} is not what Ollama sends (${why})`;
    return new AppError("upstream:ollama", `Ollama error: ${ollama}. Is ${this.baseUrl} an Ollama server?`, {
      details: { ollama, path },
    });
  }

  /** `request` for a named installed model: Ollama's 404 becomes `not_found:model`. */
  private async requestFor<S extends z.ZodType>(
    model: string,
    path: string,
    schema: S,
    init: RequestInit,
  ): Promise<z.infer<S>> {
    try {
      return await this.request(path, schema, { headers: { "content-type": "application/json" }, ...init }, model);
    } catch (error) {
      if (error instanceof AppError && error.code === "bad_request:unknown_model") {
        throw new AppError("not_found:model", `Model '${model}' is not installed in Ollama.`, { details: { model } });
      }
      throw error;
    }
  }

  /** Ollama's version, or why it cannot be reached, from a probe at most VERSION_FRESH_MS old. */
  async version(): Promise<string> {
    return await this.versionProbe.get();
  }

  /** Drops the last version probe's answer: the server was seen to answer (or fail) since. */
  forgetVersion(): void {
    this.versionProbe.clear();
  }

  /** Asks `/api/version` now. */
  async fetchVersion(): Promise<string> {
    const answer = await this.request("/api/version", versionSchema, {
      signal: AbortSignal.timeout(VERSION_TIMEOUT_MS),
    });
    return answer?.version ?? "unknown";
  }

  private show(model: string): Promise<ShowResponse> {
    const cached = this.showCache.get(model);
    if (cached && Date.now() - cached.at < SHOW_CACHE_MS) return cached.value;
    const value = this.request(
      "/api/show",
      showSchema,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model }) },
      model,
    );
    this.showCache.set(model, { at: Date.now(), value });
    value.catch(() => this.showCache.delete(model));
    return value;
  }

  /** Abilities and context length of one model; an unknown model is an `unknown_model` error. */
  async describe(model: string): Promise<ModelInfo> {
    const show = await this.show(model);
    const capabilities = show.capabilities ?? [];
    return {
      name: model,
      family: show.details?.family ?? null,
      parameterSize: show.details?.parameter_size ?? null,
      quantization: show.details?.quantization_level ?? null,
      sizeBytes: null,
      capabilities,
      contextLength: contextLengthFrom(show.model_info),
      abilities: abilitiesFrom(capabilities),
    };
  }

  /** Forgets what `/api/show` said: after a pull or a delete a name may mean another model. */
  forgetModels(): void {
    this.showCache.clear();
  }

  /** One installed model in full: what the list says, and its licence. */
  async details(model: string): Promise<ModelDetails> {
    const [shown, installed] = await Promise.all([
      this.requestFor(model, "/api/show", showSchema, { method: "POST", body: JSON.stringify({ model }) }),
      this.listModels(),
    ]);
    const info = installed.find((m) => m.name === model);
    if (!info)
      throw new AppError("not_found:model", `Model '${model}' is not installed in Ollama.`, { details: { model } });
    return { ...info, license: shown.license?.trim() || null };
  }

  /** `DELETE /api/delete`; a model that is not installed is `not_found:model`. */
  async deleteModel(model: string): Promise<void> {
    await this.requestFor(model, "/api/delete", anyAnswer, { method: "DELETE", body: JSON.stringify({ model }) });
    this.forgetModels();
  }

  /** The models in memory now, from `/api/ps`. */
  async loadedModels(): Promise<LoadedModel[]> {
    const ps = await this.request("/api/ps", psSchema);
    return (ps.models ?? []).map((entry) => {
      const expires = entry.expires_at ? Date.parse(entry.expires_at) : Number.NaN;
      return {
        name: entry.name,
        sizeBytes: entry.size ?? null,
        vramBytes: entry.size_vram ?? null,
        // Ollama writes a year far ahead for "forever" (keep_alive negative).
        expiresAt: Number.isFinite(expires) && expires < Date.now() + 100 * 365 * 86_400_000 ? expires : null,
        contextLength: entry.context_length ?? null,
      };
    });
  }

  /** Frees the model's memory now: a chat request without messages and `keep_alive: 0`. */
  async unload(model: string): Promise<void> {
    await this.requestFor(model, "/api/chat", anyAnswer, {
      method: "POST",
      body: JSON.stringify({ model, messages: [], keep_alive: 0 }),
    });
  }

  /**
   * The names of the installed models, without asking what each can do. Never cached: a run start
   * must see a model deleted a moment ago (`ollama rm`), to refuse it before anything is stored.
   */
  async installedNames(): Promise<string[]> {
    const tags = await this.request("/api/tags", tagsSchema);
    return (tags.models ?? []).map((tag) => tag.name);
  }

  /** Installed models with what each can do. */
  async listModels(): Promise<ModelInfo[]> {
    const tags = await this.request("/api/tags", tagsSchema);
    return Promise.all(
      (tags.models ?? []).map(async (tag) => {
        const info = await this.describe(tag.name);
        return {
          ...info,
          family: tag.details?.family ?? info.family,
          parameterSize: tag.details?.parameter_size ?? info.parameterSize,
          quantization: tag.details?.quantization_level ?? info.quantization,
          sizeBytes: tag.size ?? null,
        };
      }),
    );
  }
}
