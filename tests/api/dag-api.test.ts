import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { GET as replay } from "@/app/api/runs/[runId]/events/route";
import { PATCH as patchSettings } from "@/app/api/settings/route";
import type { ChatRequestBody, ScriptedReply } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

const idle = (conversationId: string) => waitIdle(fake(), conversationId);

async function runChat(body: Record<string, unknown>): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", body));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await idle(String(body.conversationId));
  return events;
}

const detail = async (id: string) =>
  (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
    conversation: { planFirst: boolean };
    messages: { role: string; content: string; run: { mode: string; steps: Record<string, unknown>[] } | null }[];
  };

const toolName = (req: ChatRequestBody) => req.tools?.[0]?.function.name;
const lastText = (req: ChatRequestBody) => String(req.messages?.find((m) => m.role === "user")?.content ?? "");

/** A fake Ollama that plans `steps`, answers each step by its task with `stepReply`, judges achieved, then writes "Final." */
/** The smallest plan (a one-step plan is the plain agent's work). */
const TWO_STEPS = [
  { id: "a", task: "x", dependencies: [] },
  { id: "b", task: "y", dependencies: [] },
];

function dagModel(steps: Record<string, unknown>[], stepReply: (task: string, req: ChatRequestBody) => ScriptedReply) {
  fake().setDefaultResponder((req) => {
    if (toolName(req) === "make_plan") return { toolCalls: [{ name: "make_plan", arguments: { steps } }] };
    if (toolName(req) === "judge_results") {
      return {
        toolCalls: [
          {
            name: "judge_results",
            arguments: { achieved: true, confidence: 0.9, final_answer: "Draft.", reasoning: "ok" },
          },
        ],
      };
    }
    if (req.tools) return stepReply(/Your step: (.*)/.exec(lastText(req))?.[1] ?? "", req);
    if (req.stream === false) return { content: "A title" };
    return { chunks: ["Final", "."] };
  });
}

describe("DAG mode behind /api/chat", () => {
  it("streams the plan, each step's progress and its tool events tagged with stepId, then the answer; a reload replays the same events", async () => {
    app.web().routes.set("/page", { body: "<p>Page text.</p>" });
    dagModel(
      [
        { id: "s1", task: "read the page", dependencies: [], tool_hint: "scrape_url" },
        { id: "s2", task: "sum it up", dependencies: ["s1"] },
      ],
      (task, req) =>
        task === "read the page" && !req.messages?.some((m) => m.role === "tool")
          ? { toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/page` } }] }
          : { content: `done: ${task}` },
    );
    const id = await newConversation();
    const events = await runChat({ conversationId: id, message: "Summarise the page", mode: "dag" });

    expect(events[0]).toMatchObject({ event: "run", data: { mode: "dag" } });
    expect(events.find((e) => e.event === "plan")?.data).toMatchObject({
      round: 1,
      steps: [
        { id: "s1", dependencies: [], tool_hint: "scrape_url" },
        { id: "s2", dependencies: ["s1"] },
      ],
    });
    const progress = events.filter((e) => e.event === "step_progress").map((e) => e.data);
    expect(progress.map((p) => `${p.stepId} ${p.status} ${p.model}`)).toEqual([
      "s1 running llama3.2:latest",
      "s1 done llama3.2:latest",
      "s2 running llama3.2:latest",
      "s2 done llama3.2:latest",
    ]);
    const steps = events.filter((e) => e.event === "step").map((e) => e.data);
    expect(steps.map((s) => `${s.type} ${s.stepId}`)).toEqual(["tool_call s1", "tool_result s1"]);
    // s2's question carries s1's result.
    const s2 = fake()
      .chatRequests()
      .find((r) => lastText(r.body).includes("Your step: sum it up"));
    expect(lastText(s2?.body)).toContain("### s1: read the page\ndone: read the page");
    const answer = events.filter((e) => e.event === "answer" && e.data.status === "delta").map((e) => e.data.content);
    expect(answer.join("")).toBe("Final.");

    const runId = String(events[0]?.data.runId);
    const replayed = await readEvents(
      await replay(jsonRequest(`/api/runs/${runId}/events?after=0`, "GET"), params({ runId })),
    );
    const stored = (list: ParsedEvent[]) => list.filter((e) => e.id && !e.id.includes(".") && e.event !== "title");
    expect(stored(replayed)).toEqual(stored(events));

    const turn = (await detail(id)).messages[1];
    expect(turn?.content).toBe("Final.");
    expect(turn?.run?.mode).toBe("dag");
    expect(
      turn?.run?.steps.map((s) => `${s.type}${s.stepId ? ` ${s.stepId}` : ""}${s.status ? ` ${s.status}` : ""}`),
    ).toEqual([
      "plan",
      "step_progress s1 running",
      "tool_call s1",
      "tool_result s1",
      "step_progress s1 done",
      "step_progress s2 running",
      "step_progress s2 done",
    ]);
  });

  it("runs each step on its role's model: reasoning → the reasoning role, which also plans; none → the conversation's", async () => {
    expect(
      (await patchSettings(jsonRequest("/api/settings", "PATCH", { roles: { reasoning: "qwen3:8b" } }))).status,
    ).toBe(200);
    dagModel(
      [
        { id: "a", task: "think hard", dependencies: [], model_hint: "reasoning" },
        { id: "b", task: "look up", dependencies: [], model_hint: null },
      ],
      (task) => ({ content: `done ${task}` }),
    );
    const id = await newConversation();
    const events = await runChat({ conversationId: id, message: "Plan this", mode: "dag" });
    const done = events.filter((e) => e.event === "step_progress" && e.data.status === "done").map((e) => e.data);
    expect(Object.fromEntries(done.map((p) => [p.stepId, p.model]))).toEqual({ a: "qwen3:8b", b: "llama3.2:latest" });
    const byTool = (name: string) =>
      fake()
        .chatRequests()
        .filter((r) => toolName(r.body) === name)
        .map((r) => r.body.model);
    expect(byTool("make_plan")).toEqual(["qwen3:8b"]);
    expect(byTool("judge_results")).toEqual(["qwen3:8b"]);
  });

  it("an unset reasoning role is played by the conversation's own model: the planner, the judge and reasoning steps", async () => {
    expect((await patchSettings(jsonRequest("/api/settings", "PATCH", { roles: { reasoning: null } }))).status).toBe(
      200,
    );
    dagModel(
      [
        { id: "a", task: "think hard", dependencies: [], model_hint: "reasoning" },
        { id: "b", task: "look up", dependencies: [], model_hint: null },
      ],
      (task) => ({ content: `done ${task}` }),
    );
    const id = await newConversation();
    const events = await runChat({ conversationId: id, message: "Plan this", mode: "dag" });
    const done = events.filter((e) => e.event === "step_progress" && e.data.status === "done").map((e) => e.data);
    expect(Object.fromEntries(done.map((p) => [p.stepId, p.model]))).toEqual({
      a: "llama3.2:latest",
      b: "llama3.2:latest",
    });
    const models = (name: string) =>
      fake()
        .chatRequests()
        .filter((r) => toolName(r.body) === name)
        .map((r) => r.body.model);
    expect(models("make_plan")).toEqual(["llama3.2:latest"]);
    expect(models("judge_results")).toEqual(["llama3.2:latest"]);
  });

  it("the planner, the judge and reasoning steps send the reasoning role's keep-alive; steps on the conversation's model its own", async () => {
    const settings = { roles: { reasoning: "qwen3:8b" }, keepAlive: { reasoning: "1h", general: "2m" } };
    expect((await patchSettings(jsonRequest("/api/settings", "PATCH", settings))).status).toBe(200);
    dagModel(
      [
        { id: "a", task: "think hard", dependencies: [], model_hint: "reasoning" },
        { id: "b", task: "look up", dependencies: [], model_hint: null },
      ],
      (task) => ({ content: `done ${task}` }),
    );
    await runChat({ conversationId: await newConversation(), message: "Plan this", mode: "dag" });
    const sent = fake()
      .chatRequests()
      .map((r) => [r.body.model, r.body.keep_alive]);
    expect(Object.fromEntries(sent)).toEqual({ "qwen3:8b": "1h", "llama3.2:latest": "2m" });
    expect(sent.filter(([model]) => model === "qwen3:8b").every(([, keepAlive]) => keepAlive === "1h")).toBe(true);
    expect(sent.filter(([model]) => model !== "qwen3:8b").every(([, keepAlive]) => keepAlive === "2m")).toBe(true);
    await patchSettings(jsonRequest("/api/settings", "PATCH", { keepAlive: { reasoning: null, general: null } }));
  });

  it('remembers "Plan first" per conversation: set by mode dag, cleared by another mode, kept when no mode is sent', async () => {
    dagModel(TWO_STEPS, () => ({ content: "ok" }));
    const id = await newConversation();
    expect((await detail(id)).conversation.planFirst).toBe(false);
    await runChat({ conversationId: id, message: "one", mode: "dag" });
    expect((await detail(id)).conversation.planFirst).toBe(true);
    await runChat({ conversationId: id, message: "two" });
    expect((await detail(id)).conversation.planFirst).toBe(true);
    await runChat({ conversationId: id, message: "three", mode: "auto" });
    expect((await detail(id)).conversation.planFirst).toBe(false);
  });

  it('runs follow-ups the server sends as the next turn in the conversation\'s remembered "Plan first" mode', async () => {
    // Steps answer by their task; the ReAct loop of a turn sent without a mode streams slowly.
    dagModel(TWO_STEPS, (task) => (task ? { content: "ok" } : { chunks: ["a ", "b ", "c"], chunkDelayMs: 150 }));
    const id = await newConversation();
    await runChat({ conversationId: id, message: "one", mode: "dag" });
    // Sent without a mode: a ReAct turn; the conversation still remembers Plan first.
    const response = await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "two" }));
    await readEvents(response, (e) => {
      if (e.event === "answer" && e.data.status === "start") {
        void interrupt(jsonRequest("", "POST", { message: "and three" }), params({ id }));
      }
      return false;
    });
    await expect.poll(async () => (await detail(id)).messages.length, { timeout: 10_000 }).toBe(6);
    await idle(id);
    const { conversation, messages } = await detail(id);
    expect(messages.map((m) => `${m.role}:${m.run?.mode ?? ""}`)).toEqual([
      "user:",
      "assistant:dag",
      "user:",
      expect.not.stringMatching(/dag/),
      "user:",
      "assistant:dag",
    ]);
    expect(messages[4]?.content).toBe("and three");
    expect(conversation.planFirst).toBe(true);
  });

  it("refuses a mode that is not one of auto, native, json, dag, and stores nothing", async () => {
    const id = await newConversation();
    await expectApiError(
      await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "x", mode: "DAG" })),
      400,
      "bad_request:validation",
    );
    expect((await detail(id)).messages).toEqual([]);
  });

  it("Stop aborts every running step's Ollama request at once", async () => {
    dagModel(
      [
        { id: "a", task: "one", dependencies: [] },
        { id: "b", task: "two", dependencies: [] },
      ],
      () => ({ hang: true }),
    );
    const id = await newConversation();
    const response = await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "go", mode: "dag" }));
    const stepRequests = () =>
      fake()
        .chatRequests()
        .filter((r) => lastText(r.body).includes("Your step:"));
    await expect.poll(() => stepRequests().length, { timeout: 10_000 }).toBe(2);
    expect((await stop(jsonRequest("", "POST"), params({ id }))).status).toBe(202);
    const events = await readEvents(response);
    expect(events.at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    await expect.poll(() => stepRequests().every((r) => r.aborted), { timeout: 10_000 }).toBe(true);
    await idle(id);
  });
});
