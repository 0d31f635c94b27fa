import { abilityOverrides, roleModel } from "@/lib/admin-settings";
import { isAdmin } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { sameModel } from "@/lib/llm/model-replacement";
import type { PooledModel } from "@/lib/llm/ollama-pool";
import { listServerModelInfos } from "@/lib/llm/openai-compatible/openai-models";
import { listServerModels } from "@/lib/llm/openai-compatible/servers";
import { getOllamaPool } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/** Ollama's models, or none and the error it gave; anything but an `AppError` is a bug, thrown. */
async function ollamaModels(): Promise<{ models: PooledModel[]; failure?: AppError }> {
  try {
    return { models: await getOllamaPool().listModels() };
  } catch (failure) {
    if (!(failure instanceof AppError)) throw failure;
    return { models: [], failure };
  }
}

/**
 * Installed models (the union over the Ollama servers) with capabilities, context length and
 * abilities, then the OpenAI-compatible servers' models, each named `<model>@<label>` and tagged with
 * its server (`openaiCompatible`); the default model; and the vision role's model when it is installed
 * (it answers images a model without vision cannot see). Which Ollama servers have each model is
 * infrastructure: admins only. Ollama down with a server's models to list is a list of those, with
 * `ollama.reachable` false and Ollama's error; with nothing to list it is Ollama's error (502).
 * `servers`: each OpenAI-compatible server's label and state (up, down, key_refused).
 */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) => {
  const config = getConfig();
  const db = await getDb();
  const [ollama, served, looks] = await Promise.all([
    ollamaModels(),
    abilityOverrides(db).then(listServerModelInfos),
    listServerModels(),
  ]);
  const { failure } = ollama;
  if (failure && served.length === 0) throw failure;
  const vision = await roleModel(db, "vision");
  const models = [
    ...ollama.models.map(({ servers, ...model }) => ({
      ...model,
      ...(isAdmin(viewer) ? { servers } : {}),
      usableContext: Math.min(config.NUM_CTX, model.contextLength ?? config.NUM_CTX),
    })),
    // A server's context is its own (set when it started): no num_ctx to cap.
    ...served.map((model) => ({ ...model, usableContext: model.contextLength ?? config.OPENAI_COMPATIBLE_CONTEXT })),
  ];
  return Response.json({
    models,
    defaultModel: (await roleModel(db, "general")) ?? models[0]?.name ?? null,
    visionModel:
      models.find((model) => vision && sameModel(model.name, vision) && model.abilities.vision)?.name ?? null,
    // Its error as the API's errors are (no address in it: every signed-in user reads this list).
    ollama: failure
      ? { reachable: false, error: { code: failure.code, message: failure.message, details: failure.details } }
      : { reachable: true },
    // Each OpenAI-compatible server's state, so a chat on a model of one that is down or refused its
    // key says which (its address and error are the admin's servers view's).
    servers: looks.map(({ label, state }) => ({ label, state })),
  });
});
