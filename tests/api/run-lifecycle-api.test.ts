import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { DELETE as remove } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { interruptLiveRuns } from "@/lib/chat/shutdown";
import { getDb } from "@/lib/db/client";
import { deleteConversation } from "@/lib/db/conversations";
import { listMessages } from "@/lib/db/messages";
import { listRuns } from "@/lib/db/runs";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, newConversation, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";
import { imageGate } from "@/tests/support/image-gate";

vi.mock("@/lib/files/image-resize", async (original) =>
  (await import("@/tests/support/image-gate")).gatedImageResize(await original()),
);

const fake = setupFakeOllama();
setupAppEnv(fake);

const savedEnv = new Map<string, string | undefined>();

/** Changes the configuration for one test; `restoreEnv` (run after each test) puts it back. */
function withEnv(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
    process.env[name] = value;
  }
  resetConfigForTests();
}

function restoreEnv(): void {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
  resetConfigForTests();
}

afterEach(async () => {
  imageGate.open();
  for (const live of getLiveRuns().active()) live.controller.abort();
  await expect.poll(() => getLiveRuns().size).toBe(0);
  restoreEnv();
});

let png: Uint8Array | undefined;
async function uploadImage(conversationId: string): Promise<string> {
  if (!png) {
    const { createCanvas } = await import("@napi-rs/canvas");
    const canvas = createCanvas(64, 32);
    canvas.getContext("2d").fillRect(0, 0, 10, 10);
    png = new Uint8Array(await canvas.encode("png"));
  }
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(png)]), "chart.png");
  const response = await upload(
    new Request(`http://127.0.0.1/api/conversations/${conversationId}/files`, { method: "POST", body: form }),
    params({ id: conversationId }),
  );
  return ((await response.json()) as { id: string }).id;
}

/** A conversation on the vision model with an image to send: its start waits at the image gate. */
async function visionConversation(): Promise<{ id: string; fileId: string }> {
  const id = await newConversation("llava:7b");
  return { id, fileId: await uploadImage(id) };
}

const send = (body: Record<string, unknown>) => chat(jsonRequest("/api/chat", "POST", body));
const stopRun = (id: string) => stop(jsonRequest("", "POST"), params({ id }));
const sendInterrupt = (id: string, message: string) => interrupt(jsonRequest("", "POST", { message }), params({ id }));
const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;
const idle = (conversationId: string) => waitIdle(fake(), conversationId);

/**
 * Sends chats in parallel while the image gate is closed, waits until each has either answered or
 * is waiting at the gate, then opens it: every start got past its checks before any run existed.
 */
async function startInParallel(bodies: Record<string, unknown>[]): Promise<Response[]> {
  imageGate.close();
  let answered = 0;
  const pending = bodies.map((body) =>
    send(body).then((response) => {
      answered++;
      return response;
    }),
  );
  await expect.poll(() => answered + imageGate.waiting).toBe(bodies.length);
  imageGate.open();
  return Promise.all(pending);
}

const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();

describe("run slots are reserved before any await", () => {
  it("of 12 parallel chats in one conversation exactly one starts, the others are 409 and store nothing; Stop ends it", async () => {
    const { id, fileId } = await visionConversation();
    fake().script({ when: { hasTools: true }, hang: true });
    const responses = await startInParallel(
      Array.from({ length: 12 }, (_, i) => ({ conversationId: id, message: `question ${i}`, attachmentIds: [fileId] })),
    );
    expect(statuses(responses)).toEqual([200, ...Array(11).fill(409)]);
    const started = responses.find((r) => r.status === 200) as Response;
    for (const refused of responses.filter((r) => r !== started)) {
      expect(await codeOf(refused)).toBe("conflict:run_active");
    }
    expect(await listMessages(await getDb(), { conversationId: id })).toHaveLength(1);

    expect((await stopRun(id)).status).toBe(202);
    const events = await readEvents(started);
    expect(events.at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    await idle(id);
    expect(getLiveRuns().size).toBe(0);
    expect((await listMessages(await getDb(), { conversationId: id })).map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "stopped"],
    ]);
    expect(await listRuns(await getDb(), { conversationId: id })).toHaveLength(1);
  });

  it("of 12 parallel chats of one user across conversations exactly MAX_RUNS_PER_USER start, the others are 429", async () => {
    fake().setDefaultResponder(() => ({ hang: true }));
    const conversations = await Promise.all(Array.from({ length: 12 }, () => visionConversation()));
    const responses = await startInParallel(
      conversations.map(({ id, fileId }) => ({ conversationId: id, message: "wait", attachmentIds: [fileId] })),
    );
    expect(statuses(responses)).toEqual([200, 200, ...Array(10).fill(429)]);
    for (const refused of responses.filter((r) => r.status === 429)) {
      expect(refused.headers.get("retry-after")).toBe("10");
      expect(await codeOf(refused)).toBe("rate_limited:runs_per_user");
    }
    expect(getLiveRuns().size).toBe(2);
    const db = await getDb();
    const stored = await Promise.all(
      conversations.map(async ({ id }) => (await listMessages(db, { conversationId: id })).length),
    );
    expect(stored.filter((n) => n > 0)).toHaveLength(2);
  });

  it("of 12 parallel chats exactly MAX_RUNS_TOTAL start when the per-user cap is higher", async () => {
    withEnv({ MAX_RUNS_PER_USER: "50", MAX_RUNS_TOTAL: "3" });
    fake().setDefaultResponder(() => ({ hang: true }));
    const conversations = await Promise.all(Array.from({ length: 12 }, () => visionConversation()));
    const responses = await startInParallel(
      conversations.map(({ id, fileId }) => ({ conversationId: id, message: "wait", attachmentIds: [fileId] })),
    );
    expect(statuses(responses)).toEqual([200, 200, 200, ...Array(9).fill(429)]);
    expect(await codeOf(responses.find((r) => r.status === 429) as Response)).toBe("rate_limited:runs_total");
    expect(getLiveRuns().size).toBe(3);
  });

  it("a refused or failed start holds no slot and stores nothing", async () => {
    const id = await newConversation();
    const other = await newConversation();
    const foreignFile = await uploadImage(other);
    const failures: [Record<string, unknown>, number][] = [
      [{ model: "ghost:7b" }, 409],
      [{ attachmentIds: [foreignFile] }, 400],
      [{ model: "gemma:2b", mode: "native" }, 400],
      [{ editOf: "no-such-message" }, 400],
    ];
    // More failures than MAX_RUNS_PER_USER: a leaked slot would turn the later ones into 429s.
    for (const [extra, status] of [...failures, ...failures]) {
      expect((await send({ conversationId: id, message: "hi", ...extra })).status).toBe(status);
    }
    withEnv({ OLLAMA_BASE_URL: "http://127.0.0.1:9" });
    for (let i = 0; i < 3; i++) {
      expect((await send({ conversationId: id, message: "hi", model: "qwen3:8b" })).status).toBe(502);
    }
    restoreEnv();
    expect(getLiveRuns().size).toBe(0);
    expect(await listMessages(await getDb(), { conversationId: id })).toEqual([]);
    expect(await listRuns(await getDb(), { conversationId: id })).toEqual([]);
    const events = await readEvents(await send({ conversationId: id, message: "now it works" }));
    // A first turn's title follows `done`.
    expect(events.map((e) => e.event).slice(-2)).toEqual(["done", "title"]);
  });

  it("Stop while a chat is still starting ends it as a stopped run, and the model is never asked", async () => {
    const { id, fileId } = await visionConversation();
    imageGate.close();
    const starting = send({ conversationId: id, message: "never mind", attachmentIds: [fileId] });
    await expect.poll(() => imageGate.waiting).toBe(1);
    expect((await stopRun(id)).status).toBe(202);
    imageGate.open();
    const response = await starting;
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.map((e) => e.event)).toEqual(["run", "done"]);
    expect(events.at(-1)?.data).toMatchObject({ stopped: true });
    await idle(id);
    expect(
      fake()
        .chatRequests()
        .filter((r) => !r.aborted),
    ).toEqual([]);
    expect((await listMessages(await getDb(), { conversationId: id })).map((m) => [m.role, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "stopped"],
    ]);
  });

  it("deleting a conversation while a chat in it is starting is a 409, and the chat then runs normally", async () => {
    const { id, fileId } = await visionConversation();
    imageGate.close();
    const starting = send({ conversationId: id, message: "describe it", attachmentIds: [fileId] });
    await expect.poll(() => imageGate.waiting).toBe(1);
    const refused = await remove(jsonRequest("", "DELETE"), params({ id }));
    expect(refused.status).toBe(409);
    imageGate.open();
    const response = await starting;
    expect(response.status).toBe(200);
    expect((await readEvents(response)).map((e) => e.event).slice(-2)).toEqual(["done", "title"]);
    await idle(id);
    expect((await listMessages(await getDb(), { conversationId: id })).map((m) => m.role)).toEqual([
      "user",
      "assistant",
    ]);
  });

  it("a conversation deleted while a chat in it is about to store its question ends the chat in 404, with nothing stored", async () => {
    const id = await newConversation();
    // The chat is held just before its transaction; the deletion is one whose check for a running
    // answer ran before the chat reserved its slot.
    let arrived = () => {};
    const atTransaction = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const unended = getLiveRuns().unended;
    const endFor = unended.endFor.bind(unended);
    vi.spyOn(unended, "endFor").mockImplementationOnce(async (...args) => {
      arrived();
      await opened;
      return endFor(...args);
    });
    const starting = send({ conversationId: id, message: "hello" });
    await atTransaction;
    await deleteConversation(await getDb(), { id, ownerId: null, runsHere: getLiveRuns() });
    open();
    const response = await starting;
    expect({ status: response.status, code: await codeOf(response) }).toEqual({
      status: 404,
      code: "not_found:conversation",
    });
    expect(await listMessages(await getDb(), { conversationId: id })).toEqual([]);
    expect(await listRuns(await getDb(), { conversationId: id })).toEqual([]);
    expect(getLiveRuns().size).toBe(0);
  });

  it("a shutdown while a chat is starting stores nothing for it and stops it", async () => {
    const { id, fileId } = await visionConversation();
    imageGate.close();
    const starting = send({ conversationId: id, message: "describe it", attachmentIds: [fileId] });
    await expect.poll(() => imageGate.waiting).toBe(1);
    expect(await interruptLiveRuns(await getDb(), getLiveRuns())).toBe(0);
    expect(await listRuns(await getDb(), { conversationId: id })).toEqual([]);
    imageGate.open();
    const events = await readEvents(await starting);
    expect(events.at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    await idle(id);
  });
});

describe('run starts take turns on the event loop (docs/architecture.md, "One turn")', () => {
  it("a start takes a turn before preparing and another before storing its question", async () => {
    const turn = vi.spyOn(getLiveRuns().starts, "turn");
    try {
      const id = await newConversation();
      await readEvents(await send({ conversationId: id, message: "hi" }));
      expect(turn).toHaveBeenCalledTimes(2);
    } finally {
      turn.mockRestore();
    }
  });

  it("a start waiting on I/O holds up nobody: another chat answers meanwhile", async () => {
    const { id, fileId } = await visionConversation();
    imageGate.close();
    const waiting = send({ conversationId: id, message: "what is in it?", attachmentIds: [fileId] });
    await expect.poll(() => imageGate.waiting).toBe(1);
    const other = await newConversation();
    const events = await readEvents(await send({ conversationId: other, message: "hi" }));
    expect(events.map((e) => e.event)).toContain("done");
    expect(imageGate.waiting).toBe(1);
    imageGate.open();
    expect((await waiting).status).toBe(200);
  });
});

describe("a refused edit leaves the conversation exactly as before", () => {
  it.each([
    ["an attachment of another conversation", "foreign-file", 400, "bad_request:attachment"],
    ["an unknown attachment id", "missing-file", 400, "bad_request:attachment"],
    ["a model that is not installed", "model", 409, "conflict:model_missing"],
    ["native mode on a model without tools", "mode", 400, "bad_request:mode"],
  ])("%s", async (_label, input, status, code) => {
    const id = await newConversation("gemma:2b");
    await readEvents(await send({ conversationId: id, message: "first question" }));
    await idle(id);
    const before = {
      messages: await listMessages(await getDb(), { conversationId: id }),
      runs: await listRuns(await getDb(), { conversationId: id }),
    };
    expect(before.messages).toHaveLength(2);
    const extra: Record<string, unknown> = {
      "foreign-file": { attachmentIds: [await uploadImage(await newConversation())] },
      "missing-file": { attachmentIds: ["no-such-file"] },
      model: { model: "ghost:7b" },
      mode: { mode: "native" },
    }[input] as Record<string, unknown>;
    const editOf = (await before.messages)[0]?.id;
    const response = await send({ conversationId: id, message: "again, differently", editOf, ...extra });
    expect(response.status).toBe(status);
    expect(await codeOf(response)).toBe(code);
    expect({
      messages: await listMessages(await getDb(), { conversationId: id }),
      runs: await listRuns(await getDb(), { conversationId: id }),
    }).toEqual(before);
  });
});

describe("the follow-up queue of a run is capped", () => {
  async function hangingRun(): Promise<{ id: string; response: Response }> {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, hang: true });
    const response = await send({ conversationId: id, message: "work on it" });
    await fake().waitForRequests(1);
    return { id, response };
  }

  async function pendingAtStop(id: string, response: Response): Promise<string[] | undefined> {
    await stopRun(id);
    const events = await readEvents(response);
    const pending = events.at(-1)?.data.pendingInterrupts as { text: string }[] | undefined;
    return pending?.map((interrupt) => interrupt.text);
  }

  it("accepts MAX_INTERRUPTS_PER_RUN follow-ups and refuses the next with a retryable 429, enqueuing nothing", async () => {
    withEnv({ MAX_INTERRUPTS_PER_RUN: "3" });
    const { id, response } = await hangingRun();
    for (const text of ["one", "two", "three"]) expect((await sendInterrupt(id, text)).status).toBe(202);
    const refused = await sendInterrupt(id, "four");
    expect(refused.status).toBe(429);
    const error = ((await refused.json()) as { error: { code: string; message: string; retryable: boolean } }).error;
    expect(error).toMatchObject({ code: "rate_limited:interrupts", retryable: true });
    expect(error.message).toContain("3 follow-ups");
    expect(await pendingAtStop(id, response)).toEqual(["one", "two", "three"]);
  });

  it("accepts follow-ups up to MAX_INTERRUPT_BYTES_PER_RUN in UTF-8 bytes and refuses one byte more", async () => {
    withEnv({ MAX_INTERRUPT_BYTES_PER_RUN: "1000" });
    const { id, response } = await hangingRun();
    const big = "あ".repeat(300); // 900 bytes
    expect((await sendInterrupt(id, big)).status).toBe(202);
    const refused = await sendInterrupt(id, "x".repeat(101));
    expect(refused.status).toBe(429);
    expect(await codeOf(refused)).toBe("rate_limited:interrupt_bytes");
    expect((await sendInterrupt(id, "x".repeat(100))).status).toBe(202);
    expect((await sendInterrupt(id, "y")).status).toBe(429);
    expect(await pendingAtStop(id, response)).toEqual([big, "x".repeat(100)]);
  });
});
