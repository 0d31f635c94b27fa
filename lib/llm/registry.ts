import "server-only";
import { type ChatSettings, samplingOptions } from "@/lib/chat-settings";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { ModelRole } from "@/lib/model-roles";
import { keepAliveFor } from "@/lib/settings";
import { OllamaApi } from "./ollama-api";
import { createOllamaLLM } from "./ollama-llm";
import type { LLM } from "./types";

/** One `OllamaApi` per process (its /api/show cache is shared), created on first use. */
const globalForOllama = globalThis as unknown as { __ollamaApi?: OllamaApi };

export function getOllamaApi(): OllamaApi {
  const baseUrl = getConfig().OLLAMA_BASE_URL;
  if (globalForOllama.__ollamaApi?.baseUrl !== baseUrl) globalForOllama.__ollamaApi = new OllamaApi(baseUrl);
  return globalForOllama.__ollamaApi;
}

/**
 * The first named model, else the first installed one (the request's, the conversation's,
 * then the general role, in the caller's order).
 */
export async function resolveModelName(...preferred: (string | null | undefined)[]): Promise<string> {
  const chosen = preferred.find((name): name is string => Boolean(name));
  if (chosen) return chosen;
  const models = await getOllamaApi().listModels();
  const first = models.find(
    (model) => !model.capabilities.includes("embedding") || model.capabilities.includes("completion"),
  );
  if (!first) {
    throw new AppError(
      "bad_request:no_models",
      "Ollama has no models installed. Pull one first, e.g. `ollama pull llama3.2`.",
    );
  }
  return first.name;
}

/**
 * An `LLM` for an installed model playing `role` (`general`: the conversation's model), with a
 * chat's own settings (sampling, context, thinking) on every call and the role's keep-alive; an
 * unknown model is an `unknown_model` error naming it. The context is capped by NUM_CTX (which may
 * have been lowered since the chat saved its own) and by the model's length.
 */
export async function getLLM(model: string, settings: ChatSettings = {}, role: ModelRole = "general"): Promise<LLM> {
  const config = getConfig();
  const api = getOllamaApi();
  const info = await api.describe(model);
  return createOllamaLLM({
    baseUrl: api.baseUrl,
    model,
    abilities: info.abilities,
    modelContextLength: info.contextLength,
    numCtx: Math.min(config.NUM_CTX, settings.numCtx ?? config.NUM_CTX),
    think: settings.think,
    sampling: samplingOptions(settings),
    keepAlive: keepAliveFor(getDb(), role),
    timeoutMs: config.OLLAMA_TIMEOUT_S * 1000,
    maxLineBytes: config.OLLAMA_MAX_LINE_MB * 1024 * 1024,
  });
}
