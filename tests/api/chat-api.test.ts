import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { listMessages } from "@/lib/db/messages";
import { createRun, finishRun, listRunEvents } from "@/lib/db/runs";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

/** The text of the last user message of a recorded Ollama request body. */
// biome-ignore lint/suspicious/noExplicitAny: a recorded request body is whatever the app sent
const lastUser = (body: any): string =>
  body?.messages?.findLast((m: { role: string }) => m.role === "user")?.content ?? "";

const send = (body: unknown) => chat(jsonRequest("/api/chat", "POST", body));

interface Detail {
  conversation: { title: string; model: string };
  messages: {
    role: string;
    content: string;
    status: string;
    run: { status: string; usage: { totalTokens: number }; error: string | null; fallback: boolean } | null;
  }[];
  activeRunId: string | null;
}

async function detail(id: string): Promise<Detail> {
  return (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as Detail;
}

const idle = (conversationId: string) => waitIdle(fake(), conversationId);

const answerText = (events: ParsedEvent[]) =>
  events
    .filter((e) => e.event === "answer" && e.data.status === "delta")
    .map((e) => e.data.content)
    .join("");

describe("POST /api/chat streams a run over SSE", () => {
  it("sends run, answer start/deltas/done and done, in order, with SSE headers, then the title", async () => {
    const id = await newConversation();
    fake().script(
      { when: { stream: false, lastUserIncludes: "short title" }, content: '"Greeting the world."' },
      { when: { hasTools: true }, chunks: ["Hello", ", ", "world"], promptEvalCount: 30, evalCount: 3 },
    );
    const response = await send({ conversationId: id, message: "Say hello" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");

    const events = await readEvents(response);
    expect(events.map((e) => `${e.event}${e.data.status ? `:${e.data.status}` : ""}`)).toEqual([
      "run",
      "answer:start",
      "answer:delta",
      "answer:delta",
      "answer:delta",
      "answer:done",
      "done",
      "title",
    ]);
    expect(events[0]?.data).toMatchObject({ conversationId: id, model: "llama3.2:latest", mode: "native" });
    expect(events[0]?.data.runId).toEqual(expect.any(String));
    expect(events[0]?.data.userMessageId).toEqual(expect.any(String));
    expect(answerText(events)).toBe("Hello, world");
    const done = events.find((e) => e.event === "done")?.data;
    // A direct answer is the tool loop's own streamed reply: one model call, its usage.
    expect(done).toMatchObject({ iterations: 1, usage: { inputTokens: 30, outputTokens: 3, totalTokens: 33 } });
    expect(done?.elapsedMs).toEqual(expect.any(Number));
    expect(done).not.toHaveProperty("stopped");

    // Stored events carry their sequence number as the SSE id; deltas are not stored.
    const isDelta = (e: ParsedEvent) => e.event === "answer" && e.data.status === "delta";
    expect(events.filter((e) => !isDelta(e) && e.event !== "title").map((e) => e.id)).toEqual(["1", "2", "3", "4"]);
    const stored = (await listRunEvents(await getDb(), { runId: String(events[0]?.data.runId) })).map((e) => e.event);
    expect(stored).toEqual(["run", "answer", "answer", "done"]);

    const after = await detail(id);
    // The first exchange gets a title from the model, cleaned of quotes and the final period.
    expect(done?.titlePending).toBe(true);
    expect(events.at(-1)?.data).toEqual({ title: "Greeting the world" });
    expect(after.conversation).toMatchObject({ title: "Greeting the world", model: "llama3.2:latest" });
    expect(after.messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ["user", "Say hello", "complete"],
      ["assistant", "Hello, world", "complete"],
    ]);
    expect(after.messages[1]?.run).toMatchObject({ status: "complete", usage: { totalTokens: 33 } });
  });

  it("a direct answer makes exactly one model call plus the title, and its deltas arrive before the reply ends", async () => {
    const id = await newConversation();
    fake().script(
      { when: { stream: false, lastUserIncludes: "short title" }, content: "Capitals" },
      { when: { hasTools: true }, chunks: ["Paris ", "is the ", "capital."], chunkDelayMs: 200 },
    );
    const response = await send({ conversationId: id, message: "What is the capital of France?" });
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (reader && !seen.includes('"delta"')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    // The first delta is here while the model is still writing (its reply has not ended).
    expect(seen).toContain('"content":"Paris "');
    expect(fake().chatRequests()[0]?.finished).toBe(false);
    await reader?.cancel();
    await expect.poll(async () => (await getConversation(await getDb(), { id, ownerId: null })).title).toBe("Capitals");
    const requests = fake()
      .chatRequests()
      .map((r) => r.body);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ stream: true });
    expect(requests[0]?.tools?.length).toBeGreaterThan(0);
    expect(requests[1]).toMatchObject({ stream: false });
    expect(lastUser(requests[1])).toContain("short title");
  });

  it("at done the turn is over: the title is still being made, and the next message starts a new turn", async () => {
    const id = await newConversation();
    fake().script(
      { when: { stream: false, lastUserIncludes: "short title" }, delayMs: 400, content: "Slow title" },
      { when: { hasTools: true }, content: "First answer." },
      { when: { hasTools: true }, content: "Second answer." },
    );
    const first = await readEvents(await send({ conversationId: id, message: "one" }), (e) => e.event === "done");
    expect(first.at(-1)?.data).toMatchObject({ titlePending: true });
    const title = fake()
      .chatRequests()
      .find((r) => lastUser(r.body).includes("short title"));
    expect(title?.finished).not.toBe(true);
    const second = await send({ conversationId: id, message: "two" });
    expect(second.status).toBe(200);
    expect(answerText(await readEvents(second))).toBe("Second answer.");
    await expect
      .poll(async () => (await getConversation(await getDb(), { id, ownerId: null })).title)
      .toBe("Slow title");
  });

  it("thinking streams live as thinking events, in the loop and in synthesis alike, then is stored whole with its duration", async () => {
    const id = await newConversation("qwen3:8b");
    fake().script(
      {
        when: { hasTools: true },
        thinking: "I should look it up.",
        toolCalls: [{ name: "no_such_tool", arguments: {} }],
      },
      { when: { hasTools: true }, content: "Nothing found." },
      { when: { hasTools: false, stream: true }, thinking: "Now write it up.", chunks: ["No ", "luck."] },
    );
    const events = await readEvents(await send({ conversationId: id, message: "look it up" }));
    const live = (iteration: number) =>
      events
        .filter((e) => e.event === "thinking" && e.data.iteration === iteration)
        .map((e) => e.data.delta)
        .join("");
    expect(live(1)).toBe("I should look it up.");
    expect(live(0)).toBe("Now write it up.");
    const steps = events.filter((e) => e.event === "step" && e.data.type === "thinking").map((e) => e.data);
    expect(steps).toEqual([
      expect.objectContaining({ iteration: 1, text: "I should look it up.", durationMs: expect.any(Number) }),
      expect.objectContaining({ iteration: 0, text: "Now write it up.", durationMs: expect.any(Number) }),
    ]);
    // The first live thinking arrives before the loop's first reply has ended (its tool call is later).
    const firstThinking = events.findIndex((e) => e.event === "thinking");
    const toolCall = events.findIndex((e) => e.event === "step" && e.data.type === "tool_call");
    expect(firstThinking).toBeLessThan(toolCall);
    expect(answerText(events)).toBe("No luck.");
  });

  it("the title comes after done, with think:false", async () => {
    const id = await newConversation("qwen3:8b");
    fake().script(
      { when: { stream: false, lastUserIncludes: "short title" }, content: "Thoughtful title" },
      { when: { hasTools: true }, thinking: "Let me think.", content: "An answer." },
    );
    const events = await readEvents(await send({ conversationId: id, message: "Think about it" }));
    expect(events.map((e) => e.event).slice(-2)).toEqual(["done", "title"]);
    const [loop, title] = fake()
      .chatRequests()
      .map((r) => r.body);
    expect(loop).toMatchObject({ think: true, stream: true });
    expect(title).toMatchObject({ think: false, stream: false });
    expect(lastUser(title)).toContain("short title");
  });

  it("stores the user's message before the model is called", async () => {
    const id = await newConversation();
    fake().script({ hang: true });
    const response = await send({ conversationId: id, message: "remember me" });
    await fake().waitForRequests(1);
    expect((await listMessages(await getDb(), { conversationId: id })).map((m) => m.content)).toEqual(["remember me"]);
    await stop(jsonRequest("", "POST"), params({ id }));
    await readEvents(response);
    await idle(id);
  });

  it("gives the model the earlier turns, a system prompt with the date, and the tools", async () => {
    const id = await newConversation();
    await readEvents(await send({ conversationId: id, message: "first question" }));
    await idle(id);
    await readEvents(await send({ conversationId: id, message: "second question" }));
    const turn = fake()
      .chatRequests()
      .filter((r) => lastUser(r.body) === "second question");
    // A direct answer: the streamed tool-loop call is the only call of the turn.
    expect(turn).toHaveLength(1);
    const loop = turn[0]?.body;
    const messages = loop.messages as { role: string; content: string }[];
    expect(loop.stream).toBe(true);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[0]?.content).toContain(new Date().toISOString().slice(0, 10));
    expect(messages[0]?.content).toContain("continue_from");
    expect(messages[1]?.content).toBe("first question");
    expect(messages[2]?.content).toContain("first question");
    expect(messages[3]?.content).toBe("second question");
    expect(loop.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      "web_search",
      "scrape_url",
      "pdf_to_text",
      "search_and_fetch",
      "remember",
    ]);
    await idle(id);
  });

  it("answers 409 to a second chat while one runs, and stores nothing for it", async () => {
    const id = await newConversation();
    fake().script({ hang: true });
    const first = await send({ conversationId: id, message: "one" });
    await fake().waitForRequests(1);
    const second = await send({ conversationId: id, message: "two" });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe("conflict:run_active");
    expect((await listMessages(await getDb(), { conversationId: id })).map((m) => m.content)).toEqual(["one"]);
    await stop(jsonRequest("", "POST"), params({ id }));
    await readEvents(first);
    await idle(id);
  });

  it("answers 409 to a chat while the database still holds a running run of the conversation, and stores nothing for it", async () => {
    // Not in this process's live runs: another app instance's run, or one whose end waits for a busy database.
    const id = await newConversation();
    const db = await getDb();
    const elsewhere = await createRun(db, { conversationId: id, mode: "native", model: "llama3.2:latest" });
    const refused = await send({ conversationId: id, message: "two" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("conflict:run_active");
    expect(await listMessages(db, { conversationId: id })).toEqual([]);
    expect(fake().requests.filter((request) => request.path === "/api/chat")).toEqual([]);

    // Once that run has ended, the conversation answers again.
    await finishRun(db, {
      runId: elsewhere.id,
      status: "complete",
      iterations: 1,
      inputTokens: 0,
      outputTokens: 0,
      answer: "",
    });
    fake().script({ when: { hasTools: true }, chunks: ["ok"] });
    expect((await send({ conversationId: id, message: "three" })).status).toBe(200);
    await idle(id);
  });

  it("keeps running when the client disconnects, and stores the full answer", async () => {
    const id = await newConversation();
    fake().script({ when: { stream: true }, chunks: ["a ", "b ", "c ", "d"], chunkDelayMs: 30 });
    const events = await readEvents(await send({ conversationId: id, message: "go" }), (e) => e.event === "answer");
    expect(events.at(-1)?.data.status).toBe("start");
    await idle(id);
    const after = await detail(id);
    expect(after.messages[1]).toMatchObject({ content: "a b c d", status: "complete" });
    // The answer's call and, after done, the title's: neither was cut off by the client leaving.
    await expect
      .poll(
        () =>
          fake()
            .chatRequests()
            .filter((r) => r.finished).length,
      )
      .toBe(2);
    expect(
      fake()
        .chatRequests()
        .every((r) => !r.aborted),
    ).toBe(true);
  });
});

describe("stop (POST /api/conversations/:id/stop)", () => {
  it("aborts the Ollama request, keeps the partial answer, and ends with done.stopped", async () => {
    const id = await newConversation();
    fake().script({
      when: { hasTools: true },
      chunks: Array.from({ length: 40 }, (_, i) => `w${i} `),
      chunkDelayMs: 40,
    });
    const response = await send({ conversationId: id, message: "long answer" });
    const events: ParsedEvent[] = [];
    let stopped = false;
    for (const event of await readEvents(response, (e) => {
      if (!stopped && e.event === "answer" && e.data.status === "delta" && e.data.content === "w2 ") {
        stopped = true;
        void stop(jsonRequest("", "POST"), params({ id })).then((r) => expect(r.status).toBe(202));
      }
      return e.event === "done";
    })) {
      events.push(event);
    }
    expect(events.at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    expect(events.at(-2)).toMatchObject({ event: "answer", data: { status: "done" } });
    await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
    await idle(id);
    const assistant = (await detail(id)).messages[1];
    expect(assistant?.status).toBe("stopped");
    expect(assistant?.content.startsWith("w0 w1 w2")).toBe(true);
    expect(assistant?.content).not.toContain("w39");
    expect(assistant?.run?.status).toBe("stopped");
  });

  it("answers 409 when nothing runs and 404 for an unknown conversation", async () => {
    const id = await newConversation();
    expect((await stop(jsonRequest("", "POST"), params({ id }))).status).toBe(409);
    expect((await stop(jsonRequest("", "POST"), params({ id: "nope" }))).status).toBe(404);
  });
});

describe("bad input gets a clear error and loses nothing", () => {
  it.each([
    ["malformed JSON", "{", 400, "bad_request:malformed_json"],
    ["a missing conversationId", { message: "hi" }, 400, "bad_request:validation"],
    ["an empty message", { conversationId: "x", message: "   " }, 400, "bad_request:validation"],
    ["an unknown conversation", { conversationId: "does-not-exist", message: "hi" }, 404, "not_found:conversation"],
  ])("%s", async (_label, body, status, code) => {
    const response = await chat(jsonRequest("/api/chat", "POST", body));
    expect(response.status).toBe(status);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe(code);
  });

  it("a model that is not installed is a 409 naming it and its replacement, and the message is not stored", async () => {
    const id = await newConversation();
    const response = await send({ conversationId: id, message: "hi", model: "ghost:7b" });
    expect(response.status).toBe(409);
    const error = ((await response.json()) as { error: { code: string; message: string; details: unknown } }).error;
    expect(error.code).toBe("conflict:model_missing");
    expect(error.message).toContain("ghost:7b");
    expect(error.details).toEqual({ model: "ghost:7b", replacement: "llama3.2:latest" });
    expect(await listMessages(await getDb(), { conversationId: id })).toEqual([]);
  });

  it("Ollama down before the stream is a 502 saying what to do, and nothing is stored", async () => {
    const id = await newConversation("llama3.2:latest");
    const saved = process.env.OLLAMA_BASE_URL;
    process.env.OLLAMA_BASE_URL = "http://127.0.0.1:9";
    resetConfigForTests();
    try {
      const response = await send({ conversationId: id, message: "hi" });
      expect(response.status).toBe(502);
      const error = ((await response.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("upstream:ollama_unreachable");
      expect(error.message).toContain("ollama serve");
      expect(await listMessages(await getDb(), { conversationId: id })).toEqual([]);
    } finally {
      process.env.OLLAMA_BASE_URL = saved;
      resetConfigForTests();
    }
  });

  // Synthesis follows a turn that used a tool (here one that does not exist: its error is a step too).
  const toolThenDraft = [
    { when: { hasTools: true }, toolCalls: [{ name: "no_such_tool", arguments: {} }] },
    { when: { hasTools: true }, content: "The loop's draft." },
  ];
  const eventNames = (events: ParsedEvent[]) =>
    events
      .filter((e) => e.event !== "step" && e.event !== "title")
      .map((e) => `${e.event}${e.data.status ? `:${e.data.status}` : ""}`);

  it.each([
    ["an Ollama error line", { midStreamError: "model runner has unexpectedly stopped" }, "unexpectedly stopped"],
    ["a dropped connection", { dropConnection: true }, "connection to Ollama broke"],
  ])(
    "a synthesis that fails mid-stream (%s) keeps exactly what streamed, interrupted with the reason",
    async (_, failure, reason) => {
      const id = await newConversation();
      fake().script(...toolThenDraft, { when: { stream: true }, chunks: ["Partial ", "text"], ...failure });
      const events = await readEvents(await send({ conversationId: id, message: "hi" }));
      expect(eventNames(events)).toEqual([
        "run",
        "answer:start",
        "answer:delta",
        "answer:delta",
        "answer:done",
        "error",
        "done",
      ]);
      expect(answerText(events)).toBe("Partial text");
      const error = events.find((e) => e.event === "error")?.data.message as string;
      expect(error).toContain(reason);
      expect(events.at(-1)?.data).toMatchObject({ interrupted: true });
      expect(events.at(-1)?.data.fallback).toBeUndefined();
      await idle(id);
      const assistant = (await detail(id)).messages[1];
      expect(assistant).toMatchObject({ status: "interrupted", content: "Partial text" });
      expect(assistant?.run).toMatchObject({ status: "interrupted", error, fallback: false });
    },
  );

  it("a synthesis that fails before any text shows the loop's draft, marked as a draft with the reason, live and stored", async () => {
    const id = await newConversation();
    fake().script(...toolThenDraft, { when: { stream: true }, errorStatus: 500, error: "out of memory" });
    const events = await readEvents(await send({ conversationId: id, message: "hi" }));
    expect(eventNames(events)).toEqual(["run", "answer:start", "answer:delta", "answer:done", "error", "done"]);
    expect(answerText(events)).toBe("The loop's draft.");
    expect(events.find((e) => e.event === "error")?.data.message).toBe("Ollama error: out of memory");
    expect(events.find((e) => e.event === "done")?.data).toMatchObject({ fallback: true });
    await idle(id);
    const assistant = (await detail(id)).messages[1];
    expect(assistant).toMatchObject({ status: "complete", content: "The loop's draft." });
    expect(assistant?.run).toMatchObject({ status: "complete", fallback: true, error: "Ollama error: out of memory" });
  });

  it("a direct answer that fails after it began to stream keeps what streamed, interrupted", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, chunks: ["Half an ", "answer"], midStreamError: "runner crashed" });
    const events = await readEvents(await send({ conversationId: id, message: "hi" }));
    expect(answerText(events)).toBe("Half an answer");
    expect(events.find((e) => e.event === "done")?.data).toMatchObject({ interrupted: true });
    await idle(id);
    const assistant = (await detail(id)).messages[1];
    expect(assistant).toMatchObject({ status: "interrupted", content: "Half an answer" });
    expect(assistant?.run).toMatchObject({ status: "interrupted", error: "Ollama error: runner crashed" });
  });

  it("a model failure in the tool loop is an error event and the run's error; the stored answer holds no error text", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, errorStatus: 500, error: "error parsing tool call: raw='{bad'" });
    const events = await readEvents(await send({ conversationId: id, message: "hi" }));
    expect(events.map((e) => e.event)).toEqual(["run", "error", "done"]);
    const failure = {
      code: "upstream:ollama",
      message: "Ollama error: error parsing tool call: raw='{bad'",
      retryable: true,
      details: { status: 500, ollama: "error parsing tool call: raw='{bad'" },
    };
    expect(events[1]?.data).toEqual(failure);
    await idle(id);
    const assistant = (await detail(id)).messages[1];
    expect(assistant?.status).toBe("error");
    expect(assistant?.content).toBe("");
    // The stored error event too, so a reload words it in the user's language from its code and details.
    expect(assistant?.run).toMatchObject({ status: "error", error: failure.message, failure });
  });

  it("an error message is not fed back to the model as an earlier answer", async () => {
    const id = await newConversation();
    fake().script({ errorStatus: 500, error: "boom" });
    await readEvents(await send({ conversationId: id, message: "first" }));
    await idle(id);
    await readEvents(await send({ conversationId: id, message: "second" }));
    const roles = (fake().chatRequests().at(-1)?.body.messages as { role: string }[] | undefined)?.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "user"]);
    await idle(id);
  });
});

describe("the run's generation time", () => {
  it("is stored from Ollama's eval_duration, so the footer can show tokens per second after a reload", async () => {
    const id = await newConversation("llama3.2:latest");
    fake().script({ when: { stream: true }, content: "A short answer.", evalCount: 30 });
    const events = await readEvents(await send({ conversationId: id, message: "hi" }));
    await idle(id);
    const done = events.find((event) => event.event === "done")?.data as { usage: { generationMs?: number } };
    // The fake spends at least 1 ms per output token.
    expect(done.usage.generationMs).toBeGreaterThanOrEqual(30);
    const run = (await detail(id)).messages.find((message) => message.role === "assistant")?.run as unknown as {
      usage: { generationMs?: number };
    };
    expect(run.usage.generationMs).toBe(Math.round(done.usage.generationMs ?? 0));
  });
});
