import { afterEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { DELETE as discard } from "@/app/api/conversations/[id]/interrupts/[interruptId]/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { listMessages } from "@/lib/db/messages";
import type { InterruptAccepted } from "@/lib/protocol/run-events";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

afterEach(async () => {
  for (const live of getLiveRuns().active()) live.controller.abort();
  await expect.poll(() => getLiveRuns().size).toBe(0);
});

const start = (body: Record<string, unknown>) => chat(jsonRequest("/api/chat", "POST", body));
const sendInterrupt = async (id: string, message: string): Promise<string> => {
  const response = await interrupt(jsonRequest("", "POST", { message }), params({ id }));
  expect(response.status).toBe(202);
  return ((await response.json()) as InterruptAccepted).interruptId;
};
const discardOne = (id: string, interruptId: string) => discard(jsonRequest("", "DELETE"), params({ id, interruptId }));

interface Held {
  id: string;
  runId: string;
  text: string;
  unsent: boolean;
}
async function detail(id: string) {
  const response = await getOne(jsonRequest("", "GET"), params({ id }));
  return (await response.json()) as {
    messages: { role: string; content: string; runId: string | null }[];
    interrupts: Held[];
    activeRunId: string | null;
  };
}
const contents = async (id: string) =>
  (await listMessages(await getDb(), { conversationId: id })).map((m) => `${m.role}:${m.content}`);

/** Everything is over: no run, and every model request answered (titles included). */
const idle = (conversationId: string) => waitIdle(fake(), conversationId);

/** A direct answer that streams slowly enough for follow-ups to arrive while it is written. */
const slowDirect = { when: { hasTools: true }, chunks: ["a ", "b ", "c"], chunkDelayMs: 150 };

describe("follow-ups held on the server", () => {
  it("a follow-up sent just before the run ends becomes the next turn with no client connected", async () => {
    const id = await newConversation();
    fake().script(slowDirect, { when: { hasTools: true }, content: "Answer to the follow-up." });
    const response = await start({ conversationId: id, message: "q" });
    // The client reads until the answer begins, sends a follow-up, then goes away (tab closed).
    await readEvents(response, (e) => e.event === "answer" && e.data.status === "start");
    const interruptId = await sendInterrupt(id, "too late");

    await expect
      .poll(() => contents(id), { timeout: 10_000 })
      .toEqual(["user:q", "assistant:a b c", "user:too late", "assistant:Answer to the follow-up."]);
    await idle(id);
    const loopCalls = fake()
      .chatRequests()
      .filter((r) => r.body?.tools);
    expect(loopCalls.at(-1)?.body.messages.at(-1)).toMatchObject({ role: "user", content: "too late" });
    const after = await detail(id);
    expect(after.interrupts).toEqual([]);
    // The next turn's question is a question of its own (no run), not an interrupt of the first run.
    expect(after.messages[2]).toMatchObject({ role: "user", runId: null });
    expect(after.messages.map((m) => m.content)).not.toContain(interruptId);
  });

  it("follow-ups a completed run never took become one next turn, their texts in the order sent", async () => {
    const id = await newConversation();
    fake().script(slowDirect, { when: { hasTools: true }, content: "Both answered." });
    const response = await start({ conversationId: id, message: "q" });
    const events = await readEvents(response, (e) => {
      if (e.event === "answer" && e.data.status === "start") {
        void sendInterrupt(id, "first").then(() => sendInterrupt(id, "二つ目"));
      }
      return false;
    });
    expect(events.findLast((e) => e.event === "done")?.data.pendingInterrupts).toMatchObject([
      { text: "first" },
      { text: "二つ目" },
    ]);
    await expect.poll(() => contents(id), { timeout: 10_000 }).toContain("assistant:Both answered.");
    expect(await contents(id)).toEqual([
      "user:q",
      "assistant:a b c",
      "user:first\n\n二つ目",
      "assistant:Both answered.",
    ]);
    await idle(id);
  });

  it("a follow-up of a stopped run stays as an unsent message, across reloads; sending it makes it a turn and no longer held", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, hang: true });
    const response = await start({ conversationId: id, message: "work on it" });
    await fake().waitForRequests(1);
    const interruptId = await sendInterrupt(id, "and the prices");
    expect((await detail(id)).interrupts).toMatchObject([{ id: interruptId, text: "and the prices", unsent: false }]);
    expect((await stop(jsonRequest("", "POST"), params({ id }))).status).toBe(202);
    await readEvents(response);
    await idle(id);

    const stopped = await detail(id);
    expect(stopped.interrupts).toMatchObject([{ id: interruptId, text: "and the prices", unsent: true }]);
    expect(stopped.messages.map((m) => m.content)).not.toContain("and the prices");
    // No turn was started for it.
    expect(
      fake()
        .chatRequests()
        .filter((r) => r.body?.tools),
    ).toHaveLength(1);

    fake().script({ when: { hasTools: true }, content: "Prices." });
    await readEvents(await start({ conversationId: id, message: "and the prices", interruptIds: [interruptId] }));
    await idle(id);
    const sent = await detail(id);
    expect(sent.interrupts).toEqual([]);
    expect((await contents(id)).slice(-2)).toEqual(["user:and the prices", "assistant:Prices."]);
  });

  it("a failed run's follow-ups stay unsent", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, delayMs: 400, errorStatus: 500, error: "boom" });
    const response = await start({ conversationId: id, message: "q" });
    await fake().waitForRequests(1);
    const interruptId = await sendInterrupt(id, "later");
    await readEvents(response);
    await idle(id);
    expect((await detail(id)).interrupts).toMatchObject([{ id: interruptId, unsent: true }]);
    expect(await contents(id)).toEqual(["user:q", "assistant:"]);
  });

  it("discarding an unsent follow-up removes it; a queued one (its run still going) is a 409, an unknown one a 404", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, hang: true });
    const response = await start({ conversationId: id, message: "q" });
    await fake().waitForRequests(1);
    const interruptId = await sendInterrupt(id, "maybe");
    await expectApiError(await discardOne(id, interruptId), 409, "conflict:interrupt_queued");
    await stop(jsonRequest("", "POST"), params({ id }));
    await readEvents(response);
    await idle(id);

    expect((await discardOne(id, interruptId)).status).toBe(204);
    expect((await detail(id)).interrupts).toEqual([]);
    await expectApiError(await discardOne(id, interruptId), 404, "not_found:interrupt");
    const other = await newConversation();
    await expectApiError(await discardOne(other, "x"), 404, "not_found:interrupt");
  });

  it("a chat that names a follow-up that is not unsent in its conversation is refused and stores nothing", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, hang: true });
    const response = await start({ conversationId: id, message: "q" });
    await fake().waitForRequests(1);
    const interruptId = await sendInterrupt(id, "held");
    await stop(jsonRequest("", "POST"), params({ id }));
    await readEvents(response);
    await idle(id);

    const other = await newConversation();
    for (const ids of [["no-such-id"], [interruptId]]) {
      const refused = await start({ conversationId: other, message: "held", interruptIds: ids });
      await expectApiError(refused, 400, "bad_request:interrupt");
    }
    expect(await contents(other)).toEqual([]);
    expect((await detail(id)).interrupts).toMatchObject([{ id: interruptId, unsent: true }]);
  });
});
