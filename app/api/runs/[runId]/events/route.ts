import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getCluster } from "@/lib/cluster/cluster";
import { type Db, getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { getRun, listRunEvents, runMessage } from "@/lib/db/runs";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { sseResponse } from "@/lib/http/sse";
import type { SentRunEvent } from "@/lib/protocol/run-events";

export const dynamic = "force-dynamic";

/**
 * Replays a run's events after `after` (or Last-Event-ID), then follows it live while it runs:
 * how a reloaded page re-attaches. A run another app instance holds is followed through it
 * (docs/cluster.md, "Following a run through another instance"). A finished run is replayed
 * from the database; its answer, whose deltas are not stored, comes back as one delta when the
 * replay starts before it.
 */
export const GET = apiRoute(async (request: Request, { params }: { params: Promise<{ runId: string }> }, viewer) => {
  const { runId } = await params;
  const after = new URL(request.url).searchParams.get("after") ?? request.headers.get("last-event-id") ?? "0";
  if (!/^\d+(\.\d+)?$/.test(after)) {
    throw new AppError("bad_request:after", "after must be an event id such as 12 or 12.3.");
  }
  const db = await getDb();
  const run = await getRun(db, { id: runId });
  // Someone else's run is "not found", like a missing one.
  await getConversation(db, { id: run.conversationId, ownerId: ownerOf(viewer) });

  const live = getLiveRuns().get(runId);
  if (live) return sseResponse((send, close) => live.subscribe(send, close, after));

  const cluster = getCluster();
  const owner = run.status === "running" ? run.instanceId : null;
  if (cluster && owner && owner !== cluster.id) {
    const user = ownerOf(viewer);
    // Past MAX_FOLLOWS_PER_USER or MAX_FOLLOWS_PER_RUN here: a 429 before the stream opens.
    cluster.follows.admit({ runId, user });
    return sseResponse((send, close) =>
      cluster.follows.follow(
        { runId, owner, after, user },
        {
          send,
          close,
          notHeld: (position) => {
            storedReplay(db, runId, position).then((events) => {
              for (const event of events) send(event);
              close();
            }, close);
          },
        },
      ),
    );
  }

  const replay = await storedReplay(db, runId, after);
  return sseResponse((send, close) => {
    for (const event of replay) send(event);
    close();
    return () => {};
  });
});

/**
 * The run's stored events after `after`, with its stored answer as one delta when they include the
 * answer's start. A client that left mid-answer (`after` is a delta's `N.k`) holds part of an answer
 * whose deltas were not stored: it gets a second `start`, which discards that part, then the whole.
 */
async function storedReplay(db: Db, runId: string, after: string): Promise<SentRunEvent[]> {
  const [stored, delta] = after.split(".");
  const events = await listRunEvents(db, { runId, after: Number(stored) });
  const answer = (await runMessage(db, { runId }))?.content ?? "";
  const replay: SentRunEvent[] = [];
  const midAnswer = delta !== undefined;
  let answerStarted = midAnswer;
  for (const event of events) {
    if (event.event === "answer" && event.data.status === "start") answerStarted = true;
    if (event.event === "answer" && event.data.status === "done" && answerStarted && answer) {
      if (midAnswer && !replay.some((sent) => sent.event === "answer")) {
        const next = Number(delta);
        replay.push({ event: "answer", data: { status: "start" }, id: `${stored}.${next + 1}` });
        replay.push({ event: "answer", data: { status: "delta", content: answer }, id: `${stored}.${next + 2}` });
      } else {
        replay.push({ event: "answer", data: { status: "delta", content: answer }, id: `${Number(event.id) - 1}.1` });
      }
    }
    replay.push(event);
  }
  return replay;
}
