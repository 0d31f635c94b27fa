import { z } from "zod";
import type { OpenAICompatibleServer } from "@/lib/env-config";
import { AppError } from "@/lib/errors";

/**
 * What an OpenAI-compatible server has: `GET /v1/models` (with its key as a Bearer token), each
 * model's context length where the server says it — vLLM's `max_model_len` in the list, else
 * llama-server's `/props` (`default_generation_settings.n_ctx`, one value for the model it serves).
 */

export type ServerModelsState = "up" | "down" | "key_refused";

export interface ServerModel {
  /** The server's own name for it. */
  name: string;
  /** `created` of its /v1/models entry: a changed one is another model under the same name. */
  created: number | null;
  contextLength: number | null;
  /**
   * What tells this model from another under the same name: its entry without what changes on every
   * list (permission ids, and a `created` that is the list's own time, as llama-server and vLLM send).
   */
  identity: string;
}

/** What the admin's servers view shows of one OpenAI-compatible server (`GET /api/admin/models/servers`). */
export interface OpenAICompatibleServerStatus {
  label: string;
  url: string | null;
  keySet: boolean;
  state: ServerModelsState;
  models: number;
  error: string | null;
}

export interface ServerModels {
  label: string;
  state: ServerModelsState;
  models: ServerModel[];
  /** Why the server is down or refused its key (for admins: it may name the server's address). */
  error: string | null;
  /** The HTTP status of a refused key (401 or 403). */
  refusedStatus?: number;
}

const modelListSchema = z.object({
  data: z.array(
    z.looseObject({
      id: z.string().min(1),
      created: z.number().nullish(),
      max_model_len: z.number().int().positive().nullish(),
    }),
  ),
});

const propsSchema = z.looseObject({
  default_generation_settings: z.looseObject({ n_ctx: z.number().int().positive().nullish() }).nullish(),
});

/** A `created` this close to the list's own time is that time, not when the model was made. */
const CREATED_IS_NOW_S = 300;

export function modelIdentity(entry: Record<string, unknown>, listedAtS: number): string {
  const { created, permission: _permission, ...rest } = entry;
  const made = typeof created === "number" && Math.abs(listedAtS - created) > CREATED_IS_NOW_S ? created : null;
  return JSON.stringify({ ...rest, created: made });
}

export function authHeaders(server: OpenAICompatibleServer): Record<string, string> {
  return server.apiKey ? { Authorization: `Bearer ${server.apiKey}` } : {};
}

/** The clear error for a refused key, naming the server by its label (never by its key). */
export function keyRefusedError(server: Pick<OpenAICompatibleServer, "label">, status: number): AppError {
  return new AppError(
    "upstream:openai_key_refused",
    `The server "${server.label}" refused the API key (HTTP ${status}). An admin sets it in OPENAI_COMPATIBLE_KEYS.`,
    { details: { server: server.label } },
  );
}

/** llama-server answers /props at its root, beside /v1. */
function propsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/v1$/, "")}/props`;
}

async function serverContext(server: OpenAICompatibleServer, signal: AbortSignal): Promise<number | null> {
  try {
    const response = await fetch(propsUrl(server.baseUrl), { headers: authHeaders(server), signal, redirect: "error" });
    if (!response.ok) return null;
    return propsSchema.parse(await response.json()).default_generation_settings?.n_ctx ?? null;
  } catch {
    return null;
  }
}

export async function fetchServerModels(server: OpenAICompatibleServer, timeoutMs: number): Promise<ServerModels> {
  const signal = AbortSignal.timeout(timeoutMs);
  const down = (error: string): ServerModels => ({ label: server.label, state: "down", models: [], error });
  let response: Response;
  try {
    response = await fetch(`${server.baseUrl}/models`, { headers: authHeaders(server), signal, redirect: "error" });
  } catch (error) {
    return down(`${server.baseUrl} does not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return {
      label: server.label,
      state: "key_refused",
      models: [],
      error: keyRefusedError(server, response.status).message,
      refusedStatus: response.status,
    };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return down(`${server.baseUrl}/models answered HTTP ${response.status}`);
  }
  const list = modelListSchema.safeParse(await response.json().catch(() => null));
  if (!list.success) return down(`${server.baseUrl}/models is no OpenAI model list`);
  const listedAtS = Date.now() / 1000;
  const needsProps = list.data.data.some((entry) => !entry.max_model_len);
  const fallback = needsProps ? await serverContext(server, signal) : null;
  return {
    label: server.label,
    state: "up",
    error: null,
    models: list.data.data.map((entry) => ({
      name: entry.id,
      created: entry.created ?? null,
      contextLength: entry.max_model_len ?? fallback,
      identity: modelIdentity(entry, listedAtS),
    })),
  };
}
