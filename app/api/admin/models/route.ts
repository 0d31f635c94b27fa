import { apiRoute } from "@/lib/http/api-route";
import { getOllamaPool } from "@/lib/llm/registry";
import { modelQuery } from "../schema";

export const dynamic = "force-dynamic";

/**
 * Deletes an installed model (`?model=`) from one server (`&server=`) or from every one that has it;
 * 404 `not_found:model` when none has it by that name, `not_found:ollama_server` for a server not configured.
 */
export const DELETE = apiRoute(
  async (request: Request) => {
    const { model, server } = modelQuery(request);
    await getOllamaPool().deleteModel(model, server);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
