import { sql } from "drizzle-orm";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { publicRoute } from "@/lib/http/api-route";
import { getOllamaApi } from "@/lib/llm/registry";

export const dynamic = "force-dynamic";

/** SPEC §12: `{ok, db, ollama: {reachable, version}}`, and how many runs are active. Reveals no paths or secrets. */
export const GET = publicRoute(async () => {
  let db = false;
  try {
    getDb().get(sql`select 1`);
    db = true;
  } catch (error) {
    console.error("[health] database check failed", error);
  }
  let ollama: { reachable: boolean; version: string | null; error?: string } = { reachable: false, version: null };
  try {
    ollama = { reachable: true, version: await getOllamaApi().version(AbortSignal.timeout(3000)) };
  } catch (error) {
    ollama = { reachable: false, version: null, error: error instanceof Error ? error.message : String(error) };
  }
  return Response.json(
    { ok: db && ollama.reachable, db, ollama, runs: { active: getLiveRuns().size } },
    { status: db ? 200 : 503 },
  );
});
