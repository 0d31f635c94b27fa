import { apiRoute } from "@/lib/http/api-route";
import { getOllamaApi } from "@/lib/llm/registry";
import { modelQuery } from "../schema";

export const dynamic = "force-dynamic";

/** Deletes an installed model (`?model=`); 404 `not_found:model` when Ollama has none by that name. */
export const DELETE = apiRoute(
  async (request: Request) => {
    const { model } = modelQuery(request);
    await getOllamaApi().deleteModel(model);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
