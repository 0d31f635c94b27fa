import { apiRoute } from "@/lib/http/api-route";
import { getOllamaPool } from "@/lib/llm/registry";
import { modelQuery } from "../../schema";

export const dynamic = "force-dynamic";

/** One installed model (`?model=`) with its licence. */
export const GET = apiRoute(
  async (request: Request) => Response.json({ model: await getOllamaPool().details(modelQuery(request).model) }),
  { admin: true },
);
