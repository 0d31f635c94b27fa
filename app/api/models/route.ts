import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/api-route";
import { getOllamaApi } from "@/lib/llm/registry";
import { roleModel } from "@/lib/settings";

export const dynamic = "force-dynamic";

/** Installed models with capabilities, context length and abilities. */
export const GET = apiRoute(async () => {
  const config = getConfig();
  const models = await getOllamaApi().listModels();
  return Response.json({
    models: models.map((model) => ({
      ...model,
      usableContext: Math.min(config.NUM_CTX, model.contextLength ?? config.NUM_CTX),
    })),
    defaultModel: roleModel(getDb(), "general") ?? models[0]?.name ?? null,
  });
});
