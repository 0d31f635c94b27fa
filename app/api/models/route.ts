import { roleModel } from "@/lib/admin-settings";
import { isAdmin } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { sameModel } from "@/lib/llm/model-replacement";
import { getOllamaPool } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/**
 * Installed models (the union over the Ollama servers) with capabilities, context length and
 * abilities; the default model; and the vision role's model when it is installed (it answers images
 * a model without vision cannot see). Which servers have each model is infrastructure: admins only.
 */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) => {
  const config = getConfig();
  const db = await getDb();
  const models = await getOllamaPool().listModels();
  const vision = await roleModel(db, "vision");
  return Response.json({
    models: models.map(({ servers, ...model }) => ({
      ...model,
      ...(isAdmin(viewer) ? { servers } : {}),
      usableContext: Math.min(config.NUM_CTX, model.contextLength ?? config.NUM_CTX),
    })),
    defaultModel: (await roleModel(db, "general")) ?? models[0]?.name ?? null,
    visionModel:
      models.find((model) => vision && sameModel(model.name, vision) && model.abilities.vision)?.name ?? null,
  });
});
