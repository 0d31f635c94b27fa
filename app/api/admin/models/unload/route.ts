import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { getOllamaApi } from "@/lib/llm/registry";
import { modelBody } from "../../schema";

export const dynamic = "force-dynamic";

/** Frees a model's memory now (a request with `keep_alive: 0`); 204. */
export const POST = apiRoute(
  async (request: Request) => {
    const { model } = await parseJsonBody(request, modelBody);
    await getOllamaApi().unload(model);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
