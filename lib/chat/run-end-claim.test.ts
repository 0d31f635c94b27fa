import { afterEach, describe, expect, it, vi } from "vitest";
import { createUser } from "@/lib/auth/accounts";
import type { Db } from "@/lib/db/client";
import { createConversation } from "@/lib/db/conversations";
import { insertMessage } from "@/lib/db/messages";
import { appendRunEvent, createRun, finishRun } from "@/lib/db/runs";
import { parseConfig } from "@/lib/env-config";
import { ToolRegistry } from "@/lib/tools/registry";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { removeAccount } from "./account-removal";
import { runAgentTurn } from "./agent-run";
import { LiveRun, LiveRuns } from "./live-run";
import { interruptLiveRuns } from "./shutdown";

vi.mock("@/lib/db/runs", async (original) => {
  const actual = await original<typeof import("@/lib/db/runs")>();
  return { ...actual, finishRun: vi.fn(actual.finishRun) };
});

/**
 * Who ends a run is decided once (`LiveRun.claimEnd`): whichever of a shutdown, Stop (the run's own
 * end, stopped), an account's removal and the run's normal end comes first stores the run's end,
 * and every other one stores nothing of it — whatever order they race in.
 */

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});
afterEach(() => vi.restoreAllMocks());

/** The model's reply never comes: the run waits in its first model call until it is stopped. */
const untilStopped: ScriptedChat = (_messages, options) =>
  new Promise((_resolve, reject) => {
    options.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
  });

/** A started run of an account's conversation, registered among the live runs, its writes held at a gate. */
async function heldRun(reply: ScriptedChat) {
  const user = await createUser(db, { username: "ada", password: "correct horse battery" });
  const conversation = await createConversation(db, { ownerId: user.id });
  const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
  const run = await createRun(db, {
    conversationId: conversation.id,
    questionId: question.id,
    mode: "native",
    model: "scripted",
  });
  const liveRuns = new LiveRuns(0);
  const live = new LiveRun({
    runId: run.id,
    conversationId: conversation.id,
    ownerId: user.id,
    interruptLimits: { maxCount: 5, maxBytes: 10_000 },
    persist: (event, seq) => appendRunEvent(db, { runId: run.id, seq, event }),
  });
  expect(liveRuns.reserve(live, { perUser: 5, total: 5 })).toBeNull();
  live.markStarted(run);
  // Every ender stores the run's end after its earlier writes: held here, each one has claimed (or not) first.
  let open = () => {};
  live.queueWrite(() => new Promise<void>((resolve) => (open = resolve)), "a held write");
  const llm = scriptedLLM({ chat: [reply] });
  const finished = runAgentTurn({
    db,
    live,
    llm,
    synthesisLlm: llm,
    titleLlm: llm,
    registry: async () => new ToolRegistry(),
    config: parseConfig({ NODE_ENV: "test" }),
    language: "en",
    toolCalling: "native",
    resolveRoleModel: async () => llm,
    input: { system: "s", history: [], question: "hi" },
    onInterrupt: () => {},
    onCompact: () => {},
    onEnd: () => liveRuns.remove(live),
    onEndNotStored: async () => {},
  });
  return { userId: user.id, runId: run.id, live, liveRuns, finished, open: () => open() };
}

type Held = Awaited<ReturnType<typeof heldRun>>;
const enders = {
  shutdown: (held: Held) => interruptLiveRuns(db, held.liveRuns),
  stop: async (held: Held) => held.live.controller.abort(new DOMException("Stopped.", "AbortError")),
  removal: (held: Held) => removeAccount(db, held.userId, held.liveRuns),
};

/** The ends stored for the run: one call of `finishRun` each. */
const endsStored = (runId: string) =>
  vi
    .mocked(finishRun)
    .mock.calls.map(([, end]) => end)
    .filter((end) => end.runId === runId);

describe("claimEnd: one ender stores the run's end", () => {
  it.each([
    [
      "a shutdown",
      "shutdown",
      { status: "interrupted", error: "The server shut down while this answer was being written." },
    ],
    [
      "an account's removal",
      "removal",
      { status: "stopped", error: "The account was removed, so this answer was stopped." },
    ],
    ["Stop (the run's own end)", "stop", { status: "stopped", error: undefined }],
  ] as const)("%s that claims first stores the end; the others race and store nothing", async (_who, first, stored) => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const held = await heldRun(untilStopped);
    const ending = [enders[first](held)];
    await expect.poll(() => held.live.endClaimed).toBe(true);
    for (const [name, end] of Object.entries(enders)) if (name !== first) ending.push(end(held));
    held.open();
    await Promise.allSettled([...ending, held.finished]);
    expect(endsStored(held.runId)).toEqual([expect.objectContaining(stored)]);
  });

  it("the run's normal end that claims first stores its answer; a shutdown, Stop and a removal after it store nothing", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const held = await heldRun({ content: "The whole answer." });
    await expect.poll(() => held.live.endClaimed).toBe(true);
    const ending = Object.values(enders).map((end) => end(held));
    held.open();
    await Promise.allSettled([...ending, held.finished]);
    expect(endsStored(held.runId)).toEqual([
      expect.objectContaining({ status: "complete", answer: "The whole answer.", error: undefined }),
    ]);
  });

  it("every ender started in the same moment: exactly one end is stored", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const held = await heldRun(untilStopped);
    const ending = [enders.removal(held), enders.stop(held), enders.shutdown(held)];
    held.open();
    await Promise.allSettled([...ending, held.finished]);
    expect(endsStored(held.runId)).toHaveLength(1);
  });
});

describe("LiveRun.claimEnd", () => {
  it("is true for the first caller only, however many claim", () => {
    const live = new LiveRun({
      runId: "r",
      conversationId: "c",
      interruptLimits: { maxCount: 1, maxBytes: 10 },
      persist: async () => {},
    });
    expect(live.endClaimed).toBe(false);
    expect([live.claimEnd(), live.claimEnd(), live.claimEnd()]).toEqual([true, false, false]);
    expect(live.endClaimed).toBe(true);
  });
});
