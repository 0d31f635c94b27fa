import "server-only";
import { abilityOverrides, keepAliveFor } from "@/lib/admin-settings";
import { type ChatSettings, samplingOptions } from "@/lib/chat-settings";
import { getDb } from "@/lib/db/client";
import { getConfig, ollamaUrls } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { ModelRole } from "@/lib/llm/model-roles";
import { keyedSingleton } from "@/lib/util/process-singleton";
import { createOllamaLLM } from "./ollama-llm";
import { OllamaPool } from "./ollama-pool";
import { createOpenAICompatibleLLM } from "./openai-compatible/openai-llm";
import { describeServerModel, serverModelName, serverModels } from "./openai-compatible/openai-models";
import { configuredServers } from "./openai-compatible/servers";
import type { LLM } from "./types";

/**
 * One `OllamaPool` per process (its servers' health, requests in flight and /api/show caches are
 * shared), created on first use and again when the configured servers change.
 */
const processPool = keyedSingleton<OllamaPool>("ollamaPool");

export function getOllamaPool(): OllamaPool {
  const urls = ollamaUrls(getConfig());
  return processPool(urls.join(","), () => new OllamaPool(urls));
}

/** Whether a name is a model of an OpenAI-compatible server (`<model>@<label>`), not Ollama's. */
export const isServerModel = (name: string) => serverModelName(name) !== null;

/** The first model of the first OpenAI-compatible server that is up, named as the app names it. */
async function firstServerModel(): Promise<string | undefined> {
  for (const server of configuredServers()) {
    const models = await serverModels(server).catch(() => []);
    if (models[0]) return `${models[0].name}@${server.label}`;
  }
  return undefined;
}

/**
 * The first named model, else the first installed one (the request's, the conversation's,
 * then the general role, in the caller's order): Ollama's, or without any the first of an
 * OpenAI-compatible server.
 */
export async function resolveModelName(...preferred: (string | null | undefined)[]): Promise<string> {
  const chosen = preferred.find((name): name is string => Boolean(name));
  if (chosen) return chosen;
  const models = await getOllamaPool().listModels();
  const first = models.find(
    (model) => !model.capabilities.includes("embedding") || model.capabilities.includes("completion"),
  );
  if (!first) {
    const served = await firstServerModel();
    if (served) return served;
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
 * have been lowered since the chat saved its own) and by the model's length. A `<model>@<label>`
 * name is a model of that OpenAI-compatible server, through its own adapter (no keep-alive there:
 * the server keeps its model loaded).
 */
export async function getLLM(model: string, settings: ChatSettings = {}, role: ModelRole = "general"): Promise<LLM> {
  const config = getConfig();
  if (isServerModel(model)) {
    const described = await describeServerModel(model, await abilityOverrides(await getDb()));
    return createOpenAICompatibleLLM({
      server: described.server,
      model: described.model.name,
      abilities: described.abilities,
      contextLength: described.contextLength,
      think: settings.think,
      sampling: samplingOptions(settings),
      timeoutMs: config.OLLAMA_TIMEOUT_S * 1000,
    });
  }
  const pool = getOllamaPool();
  const info = await pool.describe(model);
  return createOllamaLLM({
    baseUrl: pool.urls[0] ?? config.OLLAMA_BASE_URL,
    route: (name) => pool.route(name),
    model,
    abilities: info.abilities,
    modelContextLength: info.contextLength,
    numCtx: Math.min(config.NUM_CTX, settings.numCtx ?? config.NUM_CTX),
    think: settings.think,
    sampling: samplingOptions(settings),
    keepAlive: await keepAliveFor(await getDb(), role),
    timeoutMs: config.OLLAMA_TIMEOUT_S * 1000,
    failoverTimeoutMs: config.OLLAMA_FAILOVER_TIMEOUT_S * 1000,
    maxLineBytes: config.OLLAMA_MAX_LINE_MB * 1024 * 1024,
  });
}

/**
 * The models a turn may use that are like `model`: an Ollama name's are Ollama's installed models,
 * a server model's are the models of its server (so a replacement is offered from the same place).
 */
export async function installedModelNames(model: string): Promise<string[]> {
  const routed = serverModelName(model);
  if (!routed) return getOllamaPool().installedNames();
  return (await serverModels(routed.server)).map((entry) => `${entry.name}@${routed.server.label}`);
}
