import { abilityOverrides, roleModel } from "@/lib/admin-settings";
import { isAdmin } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { sameModel } from "@/lib/llm/model-replacement";
import { listServerModelInfos } from "@/lib/llm/openai-compatible/openai-models";
import { getOllamaPool } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/**
 * Installed models (the union over the Ollama servers) with capabilities, context length and
 * abilities, then the OpenAI-compatible servers' models, each named `<model>@<label>` and tagged with
 * its server (`openaiCompatible`); the default model; and the vision role's model when it is installed
 * (it answers images a model without vision cannot see). Which Ollama servers have each model is
 * infrastructure: admins only.
 */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) => {
  const config = getConfig();
  const db = await getDb();
  const [ollamaModels, served] = await Promise.all([
    getOllamaPool().listModels(),
    abilityOverrides(db).then(listServerModelInfos),
  ]);
  const vision = await roleModel(db, "vision");
  const models = [
    ...ollamaModels.map(({ servers, ...model }) => ({
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
  });
});
