import { apiRoute } from "@/lib/http/api-route";
import type { OpenAICompatibleServerStatus } from "@/lib/llm/openai-compatible/server-models";
import { configuredServers, listServerModels } from "@/lib/llm/openai-compatible/servers";
import { getOllamaPool } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/**
 * Each Ollama server: its state, version, model count, loaded models and requests in flight; and each
 * OpenAI-compatible server: its label, URL, state, model count, why it is down, and whether it has a
 * key (`keySet`), never the key.
 */
export const GET = apiRoute(
  async () => {
    const [servers, looks] = await Promise.all([getOllamaPool().status(), listServerModels()]);
    const urls = new Map(configuredServers().map((server) => [server.label, server]));
    return Response.json({
      servers,
      openaiCompatible: looks.map(
        ({ label, state, models, error }): OpenAICompatibleServerStatus => ({
          label,
          url: urls.get(label)?.baseUrl ?? null,
          keySet: Boolean(urls.get(label)?.apiKey),
          state,
          models: models.length,
          error,
        }),
      ),
    });
  },
  { admin: true },
);
