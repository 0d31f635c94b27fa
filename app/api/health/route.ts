import { viewsAsAdmin } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { busyRetryAfterSeconds, type DatabaseStatus, databaseStatus } from "@/lib/db/busy";
import { getDb } from "@/lib/db/client";
import { chosenStore } from "@/lib/env-config";
import { publicRoute } from "@/lib/http/api-route";
import { checkOllama } from "@/lib/llm/ollama-status";
import { listServerModels } from "@/lib/llm/openai-compatible/servers";

export const dynamic = "force-dynamic";

/**
 * Health is polled (monitors, bench:load every 50 ms): never cached, and `no-transform` keeps
 * Next from gzipping each tiny answer, which cost about a millisecond of CPU per poll.
 */
const HEALTH_CACHE_CONTROL = "no-store, no-transform";

/**
 * `{ok, db, store, ollama: {reachable, version}, openaiCompatible: [{label, state, models}]}` (docs/api.md),
 * and how many runs are active. Reveals no paths or secrets: why a server is down only to an admin.
 */
export const GET = publicRoute(async (request: Request) => {
  // "busy": another process holds the write lock, so writes get a 503 with Retry-After meanwhile.
  let dbStatus: DatabaseStatus = "unavailable";
  try {
    dbStatus = await databaseStatus(await getDb());
  } catch (error) {
    console.error("[health] database check failed", error);
  }
  const db = dbStatus === "ok";
  // Anyone may ask; why Ollama is unreachable, and its address, only an admin is told.
  const detailed = await viewsAsAdmin(getDb, request);
  const [ollama, servers] = await Promise.all([checkOllama({ detailed }), listServerModels()]);
  const openaiCompatible = servers.map(({ label, state, models, error }) => ({
    label,
    state,
    models: models.length,
    ...(detailed && error ? { error } : {}),
  }));
  return Response.json(
    {
      ok: db && ollama.reachable,
      db,
      dbStatus,
      store: chosenStore(),
      ollama,
      openaiCompatible,
      runs: { active: getLiveRuns().size },
    },
    {
      status: db ? 200 : 503,
      headers: {
        "Cache-Control": HEALTH_CACHE_CONTROL,
        ...(dbStatus === "busy" ? { "Retry-After": String(busyRetryAfterSeconds()) } : {}),
      },
    },
  );
});
