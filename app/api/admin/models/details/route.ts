import { apiRoute } from "@/lib/http/api-route";
import { getOllamaApi } from "@/lib/llm/registry";
import { modelQuery } from "../../schema";

export const dynamic = "force-dynamic";

/** One installed model (`?model=`) with its licence. */
export const GET = apiRoute(
  async (request: Request) => Response.json({ model: await getOllamaApi().details(modelQuery(request).model) }),
  { admin: true },
);
