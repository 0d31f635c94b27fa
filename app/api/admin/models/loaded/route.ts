import { apiRoute } from "@/lib/http/api-route";
import { getOllamaPool } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/** The models the Ollama servers hold in memory now (`/api/ps`), each with its server. */
export const GET = apiRoute(async () => Response.json({ models: await getOllamaPool().loadedModels() }), {
  admin: true,
});
