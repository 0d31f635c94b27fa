import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { getOllamaPool } from "@/lib/llm/registry";
import { modelBody } from "../../schema";

export const dynamic = "force-dynamic";

/** Frees a model's memory now (a request with `keep_alive: 0`) on one server, or every one; 204. */
export const POST = apiRoute(
  async (request: Request) => {
    const { model, server } = await parseJsonBody(request, modelBody);
    await getOllamaPool().unload(model, server);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
