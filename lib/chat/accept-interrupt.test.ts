import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { listHeldInterrupts, releaseInterrupts } from "@/lib/db/interrupts";
import { finishRun } from "@/lib/db/runs";
import { storedRunningRun } from "@/tests/support/seed-conversation";
import { type TempDb, tempDb } from "@/tests/support/temp-db";
import { acceptInterrupt } from "./accept-interrupt";
import { LiveRun, LiveRuns } from "./live-run";

let store: TempDb;

beforeEach(async () => {
  store = await tempDb();
});

afterEach(async () => {
  await store.cleanup();
});

/** The store, its inserts held back until `release` (as a slow PostgreSQL round trip is). */
function slowInserts(db: Db): { db: Db; release: () => void } {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = new Proxy(db, {
    get(target, key, receiver) {
      if (key !== "insert") return Reflect.get(target, key, receiver);
      return (table: Parameters<Db["insert"]>[0]) => ({
        values: (values: never) => released.then(() => target.insert(table).values(values)),
      });
    },
  });
  return { db: held, release };
}

async function runningRun(db: Db) {
  const { conversation, run } = await storedRunningRun(db);
  const liveRuns = new LiveRuns(0);
  const live = new LiveRun({
    runId: run.id,
    conversationId: conversation.id,
    persist: async () => {},
    interruptLimits: { maxCount: 5, maxBytes: 1000 },
  });
  liveRuns.reserve(live, { perUser: 5, total: 5 });
  live.markStarted(run);
  return { liveRuns, live };
}

describe("a follow-up accepted while its run ends", () => {
  it("a follow-up answered 202 is either taken by the run or stored as unsent, never both; a refused one leaves no row", async () => {
    const { liveRuns, live } = await runningRun(store.db);
    const slow = slowInserts(store.db);
    const answer = acceptInterrupt(
      slow.db,
      { conversationId: live.conversationId, message: "and the prices" },
      liveRuns,
    )
      .then((accepted) => ({ status: 202, id: accepted.interruptId }))
      .catch((error: { status: number }) => ({ status: error.status, id: undefined }));
    // The run ends before the follow-up's row is stored: what it had not taken goes to the next
    // turn, which no longer holds them as unsent messages.
    const handedOn = live.interrupts.close();
    await finishRun(store.db, {
      runId: live.runId,
      status: "complete",
      iterations: 1,
      inputTokens: 0,
      outputTokens: 0,
      answer: "a",
    });
    await releaseInterrupts(store.db, { ids: handedOn.map((interrupt) => interrupt.id) });
    slow.release();

    const { status, id } = await answer;
    const held = await listHeldInterrupts(store.db, { conversationId: live.conversationId });
    if (status === 202) {
      const taken = handedOn.some((interrupt) => interrupt.id === id);
      const unsent = held.some((interrupt) => interrupt.id === id && interrupt.unsent);
      expect({ taken, unsent }).toEqual({ taken: !unsent, unsent: !taken });
    } else {
      expect({ status, handedOn, held }).toEqual({ status: 409, handedOn: [], held: [] });
    }
  });
});
