import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentInput, AgentMode } from "@/lib/agent/types";
import type { Db } from "@/lib/db/client";
import { appendRunEvent, getRun, listRunEvents, runMessage } from "@/lib/db/runs";
import { parseConfig } from "@/lib/env-config";
import type { ChatMessage, ChatOptions } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import type { SentRunEvent } from "@/lib/protocol/run-events";
import { ToolRegistry } from "@/lib/tools/registry";
import { type ScriptedChat, type ScriptedLLM, scriptedLLM } from "@/tests/support/scripted-llm";
import { storedRunningRun } from "@/tests/support/seed-conversation";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { runAgentTurn } from "./agent-run";
import { LiveRun } from "./live-run";

/**
 * A run's writes go through its live run, which the engine does not wait for: its end is stored
 * after all of them, and one that fails makes the run fail clearly.
 */

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});
afterEach(() => vi.restoreAllMocks());

/** A direct answer's run (or the model's replies given), whose events are stored through `persist`. */
async function answerRun(
  persist: (db: Db, runId: string, event: SentRunEvent, seq: number) => Promise<void>,
  {
    llm = scriptedLLM({ chat: [{ content: "Hello there, how are you?" }] }),
    env = {},
    toolCalling = "native",
    input = { system: "s", history: [], question: "hi" },
  }: {
    llm?: ScriptedLLM;
    env?: Record<string, string>;
    toolCalling?: AgentMode | "dag";
    input?: AgentInput;
  } = {},
) {
  const { conversation, run } = await storedRunningRun(db, { model: "scripted" });
  const live = new LiveRun({
    runId: run.id,
    conversationId: conversation.id,
    interruptLimits: { maxCount: 5, maxBytes: 10_000 },
    persist: (event, seq) => persist(db, run.id, event, seq),
    busyRetries: { attempts: 2, delayMs: 1 },
  });
  live.markStarted(run);
  const received: SentRunEvent[] = [];
  live.subscribe(
    (event) => received.push(event),
    () => {},
  );
  const finished = runAgentTurn({
    db,
    live,
    llm,
    synthesisLlm: llm,
    titleLlm: llm,
    registry: async () => new ToolRegistry(),
    config: parseConfig({ NODE_ENV: "test", ...env }),
    language: "en",
    toolCalling,
    resolveRoleModel: async () => llm,
    input,
    onInterrupt: () => {},
    onCompact: () => {},
    onEndNotStored: async () => {},
  });
  return { run, live, received, finished };
}

const slowly = async (db: Db, runId: string, event: SentRunEvent, seq: number) => {
  await new Promise((resolve) => setTimeout(resolve, 10));
  await appendRunEvent(db, { runId, seq, event });
};

describe("a run's writes", () => {
  it("the run's end is stored after every earlier event: at done, the database has all of them", async () => {
    const { run, live, received, finished } = await answerRun(slowly);
    const atDone = new Promise<{ events: string[]; status: string }>((resolve) => {
      live.subscribe(
        (event) => {
          if (event.event !== "done") return;
          // What a page reloaded right now would replay from the database.
          void Promise.all([listRunEvents(db, { runId: run.id }), getRun(db, { id: run.id })]).then(
            ([events, stored]) => resolve({ events: events.map((e) => e.id), status: stored.status }),
          );
        },
        () => {},
      );
    });
    await finished;
    const { events, status } = await atDone;
    const sentBeforeDone = received.filter((event) => !event.id.includes(".") && event.event !== "done");
    expect(status).toBe("complete");
    expect(events).toEqual(sentBeforeDone.map((event) => event.id));
    expect((await runMessage(db, { runId: run.id }))?.content).toBe("Hello there, how are you?");
  });

  it("a run whose event could not be stored ends as an error that says so", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { run, received, finished } = await answerRun(async (db, runId, event, seq) => {
      if (event.event === "answer") throw new Error("disk I/O error");
      await appendRunEvent(db, { runId, seq, event });
    });
    await finished;
    const stored = await getRun(db, { id: run.id });
    expect(stored.status).toBe("error");
    expect(stored.error).toMatch(/could not be stored: disk I\/O error/);
    expect(received.find((event) => event.event === "error")?.data).toMatchObject({ code: "internal" });
    expect(received.at(-1)?.event).toBe("done");
  });

  it("a write that finds the database busy is tried again in its place: all events stored in order, the run complete", async () => {
    let busy = 2;
    const { run, received, finished } = await answerRun(async (db, runId, event, seq) => {
      if (event.event === "answer" && busy > 0) {
        busy--;
        throw busyError();
      }
      await appendRunEvent(db, { runId, seq, event });
    });
    await finished;
    expect((await getRun(db, { id: run.id })).status).toBe("complete");
    const stored = (await listRunEvents(db, { runId: run.id })).map((event) => event.id);
    const sent = received.filter((event) => !event.id.includes("."));
    expect(stored).toEqual(sent.map((event) => event.id));
    expect(sent.map((event) => event.event)).toEqual(["answer", "answer", "done"]);
  });

  it("a write the database stays too busy for is lost: the run ends as an error that says so", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { run, received, finished } = await answerRun(async (db, runId, event, seq) => {
      if (event.event === "answer") throw busyError();
      await appendRunEvent(db, { runId, seq, event });
    });
    await finished;
    const stored = await getRun(db, { id: run.id });
    expect(stored.status).toBe("error");
    expect(stored.error).toMatch(/could not be stored: database is locked/);
    expect(received.find((event) => event.event === "error")?.data).toMatchObject({ code: "internal" });
  });
});

/** What better-sqlite3 throws while another connection holds the write lock. */
function busyError(): Error {
  return Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
}

describe("how a run ends", () => {
  it("done carries iterationLimit when the tool loop stopped at MAX_ITERATIONS, after a notice that says so", async () => {
    const again = { toolCalls: [{ name: "web_search", arguments: { query: "again" } }] };
    const llm = scriptedLLM({ chat: [again, again], stream: [["What was found."]] });
    const { received, finished } = await answerRun(
      (db, runId, event, seq) => appendRunEvent(db, { runId, seq, event }),
      {
        llm,
        env: { MAX_ITERATIONS: "2" },
      },
    );
    await finished;
    const notice = received.find((event) => event.event === "step" && event.data.type === "notice");
    expect(notice?.data).toMatchObject({ about: { code: "iteration_limit", iterations: 2 } });
    expect(received.at(-1)).toMatchObject({ event: "done", data: { iterationLimit: true } });
  });

  it("done has no iterationLimit when the answer came within MAX_ITERATIONS", async () => {
    const { received, finished } = await answerRun((db, runId, event, seq) =>
      appendRunEvent(db, { runId, seq, event }),
    );
    await finished;
    expect(received.at(-1)?.event).toBe("done");
    expect(received.at(-1)?.data).not.toHaveProperty("iterationLimit");
  });
});

/** One model for every role, answering each kind of call by what it is asked; each call reports its own usage. */
function everyCallModel(contextLength: number) {
  let call = 0;
  const usage = () => {
    call++;
    return { inputTokens: 100 * call + 1, outputTokens: call, totalTokens: 101 * call + 1 };
  };
  let loopCalls = 0;
  const reply = (messages: ChatMessage[], options: ChatOptions): ScriptedChat => {
    const tools = (options.tools ?? []).map((tool) => tool.name);
    if (messages[0]?.content === prompt("en", "compaction_system")) return { content: "A summary.", usage: usage() };
    if (tools.includes("make_plan")) {
      const steps = [
        { id: "s1", task: "Find A", dependencies: [] },
        { id: "s2", task: "Compare with A", dependencies: ["s1"] },
      ];
      return { toolCalls: [{ name: "make_plan", arguments: { steps } }], usage: usage() };
    }
    if (tools.includes("judge_results")) {
      const verdict = { achieved: true, confidence: 0.9, final_answer: null, reasoning: "enough" };
      return { toolCalls: [{ name: "judge_results", arguments: verdict }], usage: usage() };
    }
    loopCalls++;
    const task = /Your step: (.*)/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[1];
    if (task === "Find A") return { content: "A is ".repeat(1200), usage: usage() };
    if (task) return { content: "B beats A.", usage: usage() };
    return loopCalls === 1
      ? { toolCalls: [{ name: "web_search", arguments: { query: "q" } }], usage: usage() }
      : { content: "Found it.", usage: usage() };
  };
  return scriptedLLM({
    contextLength,
    chat: Array.from({ length: 40 }, () => reply),
    stream: [["The ", "answer."]],
  });
}

describe("usage", () => {
  const long = "Earlier words about many things. ".repeat(120);
  const history: ChatMessage[] = Array.from({ length: 8 }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: long,
  }));

  it("done.usage counts every call of a ReAct run: compaction, the loop and synthesis", async () => {
    const llm = everyCallModel(2048);
    const { received, finished } = await answerRun(
      (db, runId, event, seq) => appendRunEvent(db, { runId, seq, event }),
      {
        llm,
        input: { system: "s", history, question: "What is new?" },
      },
    );
    await finished;
    const compactions = llm.chatCalls.filter((c) => c.messages[0]?.content === prompt("en", "compaction_system"));
    expect(compactions.length).toBeGreaterThan(0);
    const done = received.at(-1);
    expect(done?.event).toBe("done");
    expect(done?.data).toMatchObject({
      usage: { inputTokens: llm.reported.inputTokens, outputTokens: llm.reported.outputTokens },
    });
  });

  it("done.usage counts every call of a DAG run: planner, steps, dependency summaries, analyzer and synthesis", async () => {
    const llm = everyCallModel(16384);
    const { received, finished } = await answerRun(
      (db, runId, event, seq) => appendRunEvent(db, { runId, seq, event }),
      {
        llm,
        toolCalling: "dag",
        env: { DAG_DEPENDENCY_CHARS: "1000" },
        input: { system: "s", history: [], question: "Compare A and B" },
      },
    );
    await finished;
    const summaries = llm.chatCalls.filter((c) => c.messages[0]?.content === prompt("en", "compaction_system"));
    expect(summaries.length).toBe(1);
    const done = received.at(-1);
    expect(done?.event).toBe("done");
    expect(done?.data).toMatchObject({
      usage: { inputTokens: llm.reported.inputTokens, outputTokens: llm.reported.outputTokens },
    });
  });
});
