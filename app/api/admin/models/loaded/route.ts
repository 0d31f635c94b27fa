import { apiRoute } from "@/lib/http/api-route";
import { getOllamaApi } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/** The models Ollama holds in memory now (`/api/ps`). */
export const GET = apiRoute(async () => Response.json({ models: await getOllamaApi().loadedModels() }), {
  admin: true,
});
