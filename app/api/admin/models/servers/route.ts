import { apiRoute } from "@/lib/http/api-route";
import { getOllamaPool } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/** Each Ollama server: its state, version, model count, loaded models and requests in flight. */
export const GET = apiRoute(async () => Response.json({ servers: await getOllamaPool().status() }), {
  admin: true,
});
