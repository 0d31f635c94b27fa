import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DELETE as removeUser } from "@/app/api/admin/users/[userId]/route";
import { POST as addUser } from "@/app/api/admin/users/route";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { POST as create } from "@/app/api/conversations/route";
import { GET as runEvents } from "@/app/api/runs/[runId]/events/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { conversations, runs, users } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { signIn, signUp, type TestClient } from "@/tests/support/accounts";
import { type ParsedEvent, params, readEvents, setupAppEnv } from "@/tests/support/app-env";
import { imageGate } from "@/tests/support/image-gate";

vi.mock("@/lib/files/image-resize", async (original) =>
  (await import("@/tests/support/image-gate")).gatedImageResize(await original()),
);

const fake = setupFakeOllama();
setupAppEnv(fake);

const crashes = vi.spyOn(console, "error");
let admin: TestClient;

beforeAll(async () => {
  process.env.AUTH_MODE = "required";
  resetConfigForTests();
  admin = await signUp("admin");
});
afterAll(() => {
  // Nothing a removal ended may surface later as a crash of its run or of a request.
  expect(crashes).not.toHaveBeenCalled();
  delete process.env.AUTH_MODE;
  resetConfigForTests();
});

async function newAccount(username: string): Promise<{ client: TestClient; id: string }> {
  const added = await addUser(
    admin.request("/api/admin/users", "POST", { username, password: "correct horse battery" }),
  );
  expect(added.status).toBe(201);
  const [user] = await (await getDb()).select().from(users).where(eq(users.username, username)).limit(1);
  const id = user?.id ?? "";
  return { client: await signIn(username), id };
}

async function newConversation(who: TestClient, model?: string): Promise<string> {
  const response = await create(who.request("/api/conversations", "POST", model ? { model } : {}));
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

/** Reads a stream to its end, keeping what arrived so far visible to the test. */
function follow(response: Response): { events: ParsedEvent[]; closed: Promise<ParsedEvent[]> } {
  const events: ParsedEvent[] = [];
  const closed = readEvents(response, (event) => {
    events.push(event);
    return false;
  }).then(() => events);
  return { events, closed };
}

/** A small picture attached to the conversation; its chat prepares it for the vision model (at `imageGate`). */
async function uploadImage(who: TestClient, id: string): Promise<string> {
  const { createCanvas } = await import("@napi-rs/canvas");
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(await createCanvas(32, 32).encode("png"))]), "dot.png");
  const uploaded = await upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, {
      method: "POST",
      headers: { cookie: who.cookie, origin: "http://127.0.0.1" },
      body: form,
    }),
    params({ id }),
  );
  return ((await uploaded.json()) as { id: string }).id;
}

const remove = (userId: string) => removeUser(admin.request("", "DELETE"), params({ userId }));
const conversationRows = async (id: string) =>
  (await getDb()).select().from(conversations).where(eq(conversations.id, id));

describe("removing an account stops its runs first", () => {
  it("a streaming answer ends cleanly: every subscriber gets error and done, the stream closes, other accounts' runs go on", async () => {
    const alice = await newAccount("alice");
    const bob = await newAccount("bob");
    const bobConversation = await newConversation(bob.client);
    const aliceConversation = await newConversation(alice.client);
    fake().setDefaultResponder((req) =>
      req.stream === false
        ? { content: "The loop's answer." }
        : { chunks: Array.from({ length: 200 }, (_, i) => `w${i} `), chunkDelayMs: 50 },
    );
    const bobStream = follow(
      await chat(bob.client.request("/api/chat", "POST", { conversationId: bobConversation, message: "slow one" })),
    );
    const first = follow(
      await chat(alice.client.request("/api/chat", "POST", { conversationId: aliceConversation, message: "hi" })),
    );
    await expect.poll(() => first.events.some((e) => e.event === "answer" && e.data.status === "delta")).toBe(true);
    const runId = String(first.events[0]?.data.runId);
    const second = follow(await runEvents(alice.client.request(`/api/runs/${runId}/events`, "GET"), params({ runId })));
    await expect.poll(() => second.events.length).toBeGreaterThan(0);

    expect((await remove(alice.id)).status).toBe(204);

    for (const stream of [first, second]) {
      const events = await stream.closed;
      expect(events.slice(-2)).toMatchObject([
        { event: "error", data: { code: "not_found:account", retryable: false } },
        { event: "done", data: { stopped: true } },
      ]);
    }
    expect(getLiveRuns().forConversation(aliceConversation)).toBeUndefined();
    await expect
      .poll(() =>
        fake()
          .chatRequests()
          .some((r) => r.body.stream !== false && r.aborted),
      )
      .toBe(true);
    expect(await conversationRows(aliceConversation)).toEqual([]);
    expect(await (await getDb()).select().from(runs).where(eq(runs.id, runId))).toEqual([]);

    // Bob's answer was not touched: it is still going, and ends by his own Stop.
    expect(getLiveRuns().forConversation(bobConversation)).toBeDefined();
    expect(bobStream.events.some((e) => e.event === "done")).toBe(false);
    expect((await stop(bob.client.request("", "POST"), params({ id: bobConversation }))).status).toBe(202);
    expect((await bobStream.closed).at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    await expect.poll(() => getLiveRuns().size).toBe(0);
  });

  it("a chat still starting when its account's removal begins is refused with 404 and stores nothing, and the removal waits for it", async () => {
    const carol = await newAccount("carol");
    const id = await newConversation(carol.client, "llava:7b");
    const fileId = await uploadImage(carol.client, id);
    imageGate.close();
    const starting = chat(
      carol.client.request("/api/chat", "POST", {
        conversationId: id,
        message: "what is it?",
        attachmentIds: [fileId],
      }),
    );
    await expect.poll(() => imageGate.waiting).toBe(1);
    const removing = remove(carol.id);
    await expect.poll(() => getLiveRuns().forConversation(id)?.signal.aborted).toBe(true);
    imageGate.open();
    const response = await starting;
    expect(response.status).toBe(404);
    // Refused as its account's start, the conversation still there: the removal waited for it.
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found:account");
    expect((await removing).status).toBe(204);
    expect(getLiveRuns().size).toBe(0);
    expect(await conversationRows(id)).toEqual([]);
    expect(fake().chatRequests()).toEqual([]);
  });

  it("a chat that takes its slot while the removal waits for an earlier start is refused too; the removal ends the running answers and succeeds", async () => {
    process.env.MAX_RUNS_PER_USER = "3";
    resetConfigForTests();
    try {
      const erin = await newAccount("erin");
      const running = await newConversation(erin.client);
      const first = await newConversation(erin.client, "llava:7b");
      const late = await newConversation(erin.client, "llava:7b");
      const images = [await uploadImage(erin.client, first), await uploadImage(erin.client, late)];
      fake().setDefaultResponder((req) =>
        req.stream === false
          ? { content: "The loop's answer." }
          : { chunks: Array.from({ length: 200 }, (_, i) => `e${i} `), chunkDelayMs: 50 },
      );
      const stream = follow(
        await chat(erin.client.request("/api/chat", "POST", { conversationId: running, message: "slow one" })),
      );
      await expect.poll(() => stream.events.some((e) => e.event === "answer")).toBe(true);
      imageGate.close();
      const send = (conversationId: string, fileId: string) =>
        chat(
          erin.client.request("/api/chat", "POST", { conversationId, message: "and this?", attachmentIds: [fileId] }),
        );
      const firstStart = send(first, images[0]!);
      await expect.poll(() => imageGate.waiting).toBe(1);
      const removing = remove(erin.id);
      await expect.poll(() => getLiveRuns().forConversation(first)?.signal.aborted).toBe(true);
      // The removal waits for that start; meanwhile another chat takes a slot and is being prepared.
      const lateStart = send(late, images[1]!);
      await expect.poll(() => imageGate.waiting).toBe(2);
      imageGate.letOneThrough();
      expect((await firstStart).status).toBe(404);
      await expect.poll(() => getLiveRuns().forConversation(late)?.signal.aborted).toBe(true);
      imageGate.open();
      const refused = await lateStart;
      expect(refused.status).toBe(404);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("not_found:account");

      expect((await removing).status).toBe(204);
      expect((await stream.closed).slice(-2)).toMatchObject([
        { event: "error", data: { code: "not_found:account" } },
        { event: "done", data: { stopped: true } },
      ]);
      for (const id of [running, first, late]) expect(await conversationRows(id)).toEqual([]);
      await expect.poll(() => getLiveRuns().size).toBe(0);
    } finally {
      imageGate.open();
      delete process.env.MAX_RUNS_PER_USER;
      resetConfigForTests();
    }
  });

  it("a chat sent while its account is being removed is refused with 404 and stores nothing", async () => {
    const dave = await newAccount("dave");
    const running = await newConversation(dave.client);
    const other = await newConversation(dave.client);
    fake().setDefaultResponder((req) =>
      req.stream === false
        ? { content: "The loop's answer." }
        : { chunks: Array.from({ length: 200 }, (_, i) => `d${i} `), chunkDelayMs: 50 },
    );
    const stream = follow(
      await chat(dave.client.request("/api/chat", "POST", { conversationId: running, message: "slow one" })),
    );
    await expect.poll(() => stream.events.some((e) => e.event === "answer")).toBe(true);
    // The removal is held while it ends the running answer: its earlier writes wait at a gate.
    const live = getLiveRuns().forConversation(running)!;
    let open = () => {};
    live.queueWrite(() => new Promise<void>((resolve) => (open = resolve)), "a held write");
    const removing = remove(dave.id);
    await expect.poll(() => live.endClaimed).toBe(true);

    const refused = await chat(dave.client.request("/api/chat", "POST", { conversationId: other, message: "now" }));
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("not_found:account");
    expect(getLiveRuns().forConversation(other)).toBeUndefined();

    open();
    expect((await removing).status).toBe(204);
    expect((await stream.closed).at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    expect(await conversationRows(other)).toEqual([]);
    expect(await (await getDb()).select().from(runs).where(eq(runs.conversationId, other))).toEqual([]);
    await expect.poll(() => getLiveRuns().size).toBe(0);
  });
});
