import { sql } from "drizzle-orm";
import { viewsAsAdmin } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { publicRoute } from "@/lib/http/api-route";
import { checkOllama } from "@/lib/llm/ollama-status";

export const dynamic = "force-dynamic";

/** SPEC §12: `{ok, db, ollama: {reachable, version}}`, and how many runs are active. Reveals no paths or secrets. */
export const GET = publicRoute(async (request: Request) => {
  let db = false;
  try {
    getDb().get(sql`select 1`);
    db = true;
  } catch (error) {
    console.error("[health] database check failed", error);
  }
  // Anyone may ask; why Ollama is unreachable, and its address, only an admin is told.
  const ollama = await checkOllama({ detailed: viewsAsAdmin(getDb, request) });
  return Response.json(
    { ok: db && ollama.reachable, db, ollama, runs: { active: getLiveRuns().size } },
    { status: db ? 200 : 503 },
  );
});
