import { describe, expect, it } from "vitest";
import type { CompactionEvent } from "@/lib/agent/context-guard";
import type { ChatMessage } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import { toolOk, withSource } from "@/lib/tools/outcome";
import { analysisReply, dagHarness, planReply, untilAborted, workerLLM } from "@/tests/support/dag-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";

/** A gate a test opens when it wants; `opened` resolves the waiting callers. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("DAG mode: the executor", () => {
  it("starts independent steps together, at most DAG_MAX_CONCURRENCY at once", async () => {
    const started: string[] = [];
    const release = gate();
    const worker = workerLLM("chat-model", async (task) => {
      started.push(task);
      await release.opened;
      return { content: `found ${task}` };
    });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [planReply(["a", "b", "c", "d", "e"].map((id) => ({ id, task: id }))), analysisReply(true)],
    });
    const dag = dagHarness({ planner, worker, limits: { maxConcurrency: 4 } });
    const running = dag.run();
    await tick();
    expect(started).toEqual(["a", "b", "c", "d"]);
    release.open();
    await running;
    expect(started).toHaveLength(5);
    expect(dag.statuses().filter((status) => status.endsWith("done"))).toHaveLength(5);
  });

  it("gives a dependent step the goal, its task and its dependencies' results, after they are done", async () => {
    const order: string[] = [];
    const worker = workerLLM("chat-model", (task) => {
      order.push(task);
      return { content: `result of ${task}` };
    });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "price of A" },
          { id: "s2", task: "price of B" },
          { id: "s3", task: "compare", dependencies: ["s1", "s2"] },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    expect(order.at(-1)).toBe("compare");
    const query = worker.chatCalls.find((call) => call.messages.some((m) => m.content.includes("Your step: compare")));
    const question = query?.messages.find((message) => message.role === "user")?.content ?? "";
    expect(question).toContain("Overall goal: Compare A and B");
    expect(question).toContain("### s1: price of A\nresult of price of A");
    expect(question).toContain("### s2: price of B\nresult of price of B");
  });

  /** Steps "big one" and "big two" find 5000 characters each; "use" depends on both. */
  function bigDependencies(compaction: (messages: ChatMessage[]) => ScriptedChat) {
    const worker = workerLLM("chat-model", (task, messages) => {
      if (messages[0]?.content === prompt("en", "compaction_system")) return compaction(messages);
      return { content: task === "use" ? "ok" : "x".repeat(5000) };
    });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "big one" },
          { id: "s2", task: "big two" },
          { id: "s3", task: "use", dependencies: ["s1", "s2"] },
        ]),
        analysisReply(true),
      ],
    });
    const compactions: (CompactionEvent & { stepId?: string })[] = [];
    const dag = dagHarness({
      planner,
      worker,
      limits: { dependencyChars: 1000 },
      onCompact: (e) => compactions.push(e),
    });
    const query = () => {
      const call = worker.chatCalls.find((c) => c.messages.some((m) => m.content.includes("Your step: use")));
      return call?.messages.find((message) => message.role === "user")?.content ?? "";
    };
    const compactionCalls = () =>
      worker.chatCalls.filter((c) => c.messages[0]?.content === prompt("en", "compaction_system"));
    return { dag, query, compactionCalls, compactions };
  }

  it("summarises a dependency result over its share of DAG_DEPENDENCY_CHARS with the step_dependency hint", async () => {
    let summaries = 0;
    const big = bigDependencies(() => ({ content: `summary ${++summaries}: the price is 42` }));
    await big.dag.run();
    const calls = big.compactionCalls();
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      const request = call.messages[1]?.content ?? "";
      expect(request.startsWith(prompt("en", "compaction_step_dependency", { transcript: "" }))).toBe(true);
      expect(request).toContain("xxxx");
    }
    const question = big.query();
    expect(question).toMatch(/### s1: big one\nsummary \d: the price is 42/);
    expect(question).toMatch(/### s2: big two\nsummary \d: the price is 42/);
    expect(question).not.toContain("xxxx");
    expect(big.compactions.map((event) => [event.stepId, event.summary?.endsWith("the price is 42")])).toEqual([
      ["s3", true],
      ["s3", true],
    ]);
  });

  it("cuts dependency results to DAG_DEPENDENCY_CHARS shared among the dependencies when their compaction fails", async () => {
    const big = bigDependencies(() => {
      throw new Error("compaction model crashed");
    });
    await big.dag.run();
    expect(big.compactionCalls()).toHaveLength(2);
    expect(
      big
        .query()
        .match(/x+/g)
        ?.map((run) => run.length),
    ).toEqual([499, 499]);
    expect(big.compactions).toEqual([]);
  });

  it('marks the dependents of a failed step skipped ("dependency failed") and runs the others', async () => {
    const worker = workerLLM("chat-model", (task) =>
      task === "broken" ? new Error("model crashed") : { content: "fine" },
    );
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "broken" },
          { id: "s2", task: "needs s1", dependencies: ["s1"] },
          { id: "s3", task: "needs s2", dependencies: ["s2"] },
          { id: "s4", task: "free" },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    const ended = Object.fromEntries(
      dag.progress.filter((event) => event.status !== "running").map((event) => [event.stepId, event]),
    );
    expect(ended.s1).toMatchObject({ status: "failed", result: "model crashed" });
    expect(ended.s2).toMatchObject({ status: "skipped", result: "Skipped: dependency failed" });
    expect(ended.s3).toMatchObject({ status: "skipped", result: "Skipped: dependency failed" });
    expect(ended.s4).toMatchObject({ status: "done", result: "fine" });
    expect(worker.chatCalls.some((call) => call.messages.some((m) => m.content.includes("Your step: needs")))).toBe(
      false,
    );
  });

  it("Stop aborts every running step at once", async () => {
    const aborted: string[] = [];
    const worker = workerLLM("chat-model", async (task, _messages, signal) => {
      await untilAborted(signal).catch((error) => {
        aborted.push(task);
        throw error;
      });
      return { content: "never" };
    });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "a" },
          { id: "b", task: "b" },
          { id: "c", task: "c" },
        ]),
      ],
    });
    const dag = dagHarness({ planner, worker });
    const running = dag.run();
    await tick();
    dag.controller.abort();
    await expect(running).rejects.toThrow(/abort/i);
    expect(aborted.sort()).toEqual(["a", "b", "c"]);
  });

  it("shares DAG_RUN_MAX_ITERATIONS among the steps: a step that finds it used up fails", async () => {
    const worker = workerLLM("chat-model", () => ({ content: "done" }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "a" },
          { id: "b", task: "b" },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker, limits: { runMaxIterations: 1, maxConcurrency: 1 } });
    await dag.run();
    expect(dag.progress.filter((event) => event.status !== "running")).toMatchObject([
      { stepId: "a", status: "done" },
      { stepId: "b", status: "failed", result: "Not run: the run's iteration budget is used up." },
    ]);
  });

  it("gives a step DAG_STEP_MAX_ITERATIONS model calls at most", async () => {
    const worker = workerLLM("chat-model", () => ({ toolCalls: [{ name: "web_search", arguments: { query: "q" } }] }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "a" },
          { id: "b", task: "b" },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker, limits: { stepMaxIterations: 3 } });
    const result = await dag.run();
    expect(worker.chatCalls).toHaveLength(6);
    expect(result.iterations).toBe(6);
  });

  it("lists the step's tool_hint first among its tools", async () => {
    const worker = workerLLM("chat-model", () => ({ content: "ok" }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "read", tool_hint: "scrape_url" },
          { id: "b", task: "more", dependencies: ["a"] },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    expect(worker.chatCalls[0]?.options.tools?.map((tool) => tool.name)).toEqual(["scrape_url", "web_search"]);
  });

  it("tags every step event of a step agent with its stepId", async () => {
    let calls = 0;
    const worker = workerLLM("chat-model", () =>
      ++calls === 1 ? { toolCalls: [{ name: "web_search", arguments: { query: "q" } }] } : { content: "done" },
    );
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "look" },
          { id: "s2", task: "sum up", dependencies: ["s1"] },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    expect(dag.steps.map((step) => [step.type, step.stepId])).toEqual([
      ["tool_call", "s1"],
      ["tool_result", "s1"],
    ]);
  });
});

describe("DAG mode: models per step", () => {
  it("resolves each step's model from its model_hint just before it starts; a role changed mid-run applies to later steps", async () => {
    const fastNew = workerLLM("fast-new", () => ({ content: "new" }));
    const worker = workerLLM("chat-model", () => ({ content: "plain" }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "first", model_hint: "fast" },
          { id: "s2", task: "second", model_hint: "fast", dependencies: ["s1"] },
          { id: "s3", task: "third", model_hint: null, dependencies: ["s2"] },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    // The fast role changes while s1 runs on it: s1 keeps its model, s2 starts on the new one.
    dag.currentRoles.fast = workerLLM("fast-old", () => {
      dag.currentRoles.fast = fastNew;
      return { content: "old" };
    });
    await dag.run();
    const models = dag.progress.filter((event) => event.status === "done").map((event) => [event.stepId, event.model]);
    expect(models).toEqual([
      ["s1", "fast-old"],
      ["s2", "fast-new"],
      ["s3", "chat-model"],
    ]);
    expect(dag.progress.find((event) => event.stepId === "s2" && event.status === "running")?.model).toBe("fast-new");
  });

  it("plans and judges on the reasoning role", async () => {
    const worker = workerLLM("chat-model", () => ({ content: "ok" }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "a" },
          { id: "s2", task: "b" },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    expect(planner.chatCalls.map((call) => call.options.tools?.[0]?.name)).toEqual(["make_plan", "judge_results"]);
    expect(dag.resolved.filter((hint) => hint === "reasoning")).toHaveLength(2);
  });
});

describe("DAG mode: planning", () => {
  const cycle = planReply([
    { id: "a", task: "x", dependencies: ["b"] },
    { id: "b", task: "y", dependencies: ["a"] },
  ]);

  it("plans again once with the reason when the plan has a cycle, and runs the new plan", async () => {
    const worker = workerLLM("chat-model", () => ({ content: "ok" }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        cycle,
        planReply([
          { id: "a", task: "x" },
          { id: "b", task: "y" },
        ]),
        analysisReply(true),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    expect(planner.chatCalls[1]?.messages.at(-1)?.content).toBe(
      "That plan cannot be used: steps a, b depend on each other in a cycle. Make a new plan that fixes this.",
    );
    expect(dag.plans).toEqual([
      {
        round: 1,
        steps: [
          expect.objectContaining({ id: "a", dependencies: [] }),
          expect.objectContaining({ id: "b", dependencies: [] }),
        ],
        structured: { level: "native", calls: 1 },
      },
    ]);
  });

  it("falls back to plain ReAct on the whole question after a second bad plan, and tells the user why, as data too", async () => {
    const conversation = scriptedLLM({ model: "chat-model", chat: [{ content: "Direct answer." }] });
    const planner = scriptedLLM({ model: "reasoning-model", chat: [cycle, cycle] });
    const dag = dagHarness({ planner, worker: conversation, conversation });
    const result = await dag.run();
    expect(dag.plans).toEqual([]);
    expect(dag.steps[0]).toEqual({
      type: "notice",
      iteration: 0,
      text: "No usable plan could be made (steps a, b depend on each other in a cycle); answering directly instead.",
      about: { code: "dag_fallback", problem: { kind: "cycle", steps: ["a", "b"] } },
    });
    expect(result.direct).toBe(true);
    expect(dag.answer.join("")).toBe("Direct answer.");
    expect(conversation.chatCalls[0]?.messages.at(-1)?.content).toBe("Compare A and B");
  });
  it("a plan has 2 to DAG_MAX_STEPS steps: a one-step first plan runs as plain ReAct on the whole question, and the user is told", async () => {
    const conversation = scriptedLLM({ model: "chat-model", chat: [{ content: "Direct answer." }] });
    const planner = scriptedLLM({ model: "reasoning-model", chat: [planReply([{ id: "only", task: "Do it all" }])] });
    const worker = workerLLM("worker-model", () => ({ content: "step result" }));
    const dag = dagHarness({ planner, worker, conversation });
    const result = await dag.run();
    expect(dag.plans).toEqual([]);
    expect(worker.chatCalls).toEqual([]);
    expect(dag.steps[0]).toEqual({
      type: "notice",
      iteration: 0,
      text: `No usable plan could be made (${prompt("en", "dag_problem_single")}); answering directly instead.`,
      about: { code: "dag_fallback", problem: { kind: "single" } },
    });
    expect(result.direct).toBe(true);
    expect(dag.answer.join("")).toBe("Direct answer.");
    expect(conversation.chatCalls[0]?.messages.at(-1)?.content).toBe("Compare A and B");
  });

  it("a planner that twice plans no step is asked again with that problem, then the run answers directly and says why", async () => {
    const conversation = scriptedLLM({ model: "chat-model", chat: [{ content: "Direct answer." }] });
    const planner = scriptedLLM({ model: "reasoning-model", chat: [planReply([]), planReply([])] });
    const dag = dagHarness({ planner, worker: conversation, conversation });
    await dag.run();
    expect(planner.chatCalls.map((call) => call.messages.at(-1)?.content)).toContain(
      `That plan cannot be used: ${prompt("en", "dag_problem_empty")}. Make a new plan that fixes this.`,
    );
    expect(dag.steps[0]).toEqual({
      type: "notice",
      iteration: 0,
      text: `No usable plan could be made (${prompt("en", "dag_problem_empty")}); answering directly instead.`,
      about: { code: "dag_fallback", problem: { kind: "empty" } },
    });
  });

  it("a plan of more than DAG_MAX_STEPS steps runs its first DAG_MAX_STEPS", async () => {
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply(Array.from({ length: 12 }, (_, i) => ({ id: `s${i + 1}`, task: `Task ${i + 1}` }))),
        analysisReply(true),
      ],
    });
    const worker = workerLLM("worker-model", (task) => ({ content: `done: ${task}` }));
    const dag = dagHarness({ planner, worker, limits: { maxSteps: 10 } });
    await dag.run();
    expect(dag.plans[0]?.steps.map((step) => step.id)).toEqual(Array.from({ length: 10 }, (_, i) => `s${i + 1}`));
  });
});

describe("DAG mode: the analyzer", () => {
  it("re-plans once when the goal is not achieved, the planner seeing the findings; DAG_MAX_REPLANS bounds the rounds", async () => {
    const worker = workerLLM("chat-model", (task) => ({ content: `found ${task}` }));
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "first look" },
          { id: "s2", task: "second look", dependencies: ["s1"] },
        ]),
        analysisReply(false, null, "B's price is missing"),
        planReply([{ id: "s1", task: "price of B" }]),
        analysisReply(false, null, "still unsure"),
      ],
    });
    const dag = dagHarness({ planner, worker, limits: { maxReplans: 1 } });
    await dag.run();
    expect(dag.plans.map((plan) => [plan.round, plan.steps.map((step) => step.id)])).toEqual([
      [1, ["s1", "s2"]],
      [2, ["s1_2"]],
    ]);
    // The verdict that asked for the second round travels with its plan; the first has none.
    expect(dag.plans[0]).not.toHaveProperty("verdict");
    expect(dag.plans[0]?.structured).toEqual({ level: "native", calls: 1 });
    expect(dag.plans[1]?.verdict).toEqual({ achieved: false, confidence: 0.8, reasoning: "B's price is missing" });
    const replan = planner.chatCalls[2]?.messages.at(-1)?.content ?? "";
    expect(replan).toContain("### s1: first look\nfound first look");
    expect(replan).toContain("Why it is not enough: B's price is missing");
    expect(planner.chatCalls).toHaveLength(4);
  });

  it("interrupts reach a running step at its drain point, and those no step took reach the analyzer", async () => {
    let dag: ReturnType<typeof dagHarness> | undefined;
    const worker = workerLLM("chat-model", (task, messages) => {
      if (task === "b") return { content: "done b" };
      if (!messages.some((m) => m.content.includes("USER INTERRUPT"))) {
        dag?.interrupts.push("focus on prices");
        return { toolCalls: [{ name: "web_search", arguments: { query: "q" } }] };
      }
      return { content: `done ${task}` };
    });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "a" },
          { id: "b", task: "b", dependencies: ["a"] },
        ]),
        analysisReply(true),
      ],
    });
    dag = dagHarness({
      planner,
      worker,
      // Sent once the step has ended: only the analyzer can take it.
      onStepProgress: (event) => {
        if (event.status === "done" && event.stepId === "b") dag?.interrupts.push("and in euros");
      },
    });
    await dag.run();
    expect(worker.chatCalls[1]?.messages.at(-1)?.content).toContain("[USER INTERRUPT]: focus on prices");
    expect(dag.steps.filter((step) => step.type === "interrupt").map((step) => step.stepId)).toEqual(["a", undefined]);
    const judged = planner.chatCalls[1]?.messages.at(-1)?.content ?? "";
    expect(judged).toContain("- focus on prices\n- and in euros");
  });

  it("synthesis sees every follow-up the run took, in order — those a step took and those the analyzer took", async () => {
    let dag: ReturnType<typeof dagHarness> | undefined;
    const worker = workerLLM("chat-model", (task, messages) => {
      if (task === "b") return { content: "done b" };
      if (!messages.some((m) => m.content.includes("USER INTERRUPT"))) {
        dag?.interrupts.push("answer in French");
        return { toolCalls: [{ name: "web_search", arguments: { query: "q" } }] };
      }
      return { content: `done ${task}` };
    });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "a" },
          { id: "b", task: "b", dependencies: ["a"] },
        ]),
        analysisReply(true),
      ],
    });
    const conversation = scriptedLLM({ model: "chat-model", stream: [["Réponse"]] });
    dag = dagHarness({
      planner,
      worker,
      conversation,
      onStepProgress: (event) => {
        if (event.status === "done" && event.stepId === "b") dag?.interrupts.push("as a table");
      },
    });
    const result = await dag.run();
    for await (const _ of dag.agent.streamAnswer(result, dag.input, dag.controller.signal)) {
      // the answer streams; its request is what matters here
    }
    const user = conversation.streamCalls[0]?.messages.at(-1)?.content ?? "";
    expect(user).toContain(
      `Question:\nCompare A and B\n\n${prompt("en", "synthesis_followups", { text: "- answer in French\n- as a table" })}\n\nResearch trace:`,
    );
  });

  it("synthesis streams the answer from every step's result and the analyzer's draft", async () => {
    const worker = workerLLM("chat-model", (task) => ({ content: `found ${task}` }));
    const conversation = scriptedLLM({ model: "chat-model", stream: [["The ", "answer."]] });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "a" },
          { id: "s2", task: "b" },
        ]),
        analysisReply(true, "A beats B"),
      ],
    });
    const dag = dagHarness({ planner, worker, conversation });
    const result = await dag.run();
    const parts: string[] = [];
    for await (const part of dag.agent.streamAnswer(result, dag.input, dag.controller.signal)) {
      if (part.type === "text") parts.push(part.text);
    }
    expect(parts.join("")).toBe("The answer.");
    const prompt = conversation.streamCalls[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toContain("### s1: a\nfound a");
    expect(prompt).toContain("### s2: b\nfound b");
    expect(prompt).toContain("A beats B");
    expect(result.answer).toBe("A beats B");
  });

  it("gives every step agent and the synthesis the user's own instructions, after the agent's own", async () => {
    const worker = workerLLM("chat-model", (task) => ({ content: `found ${task}` }));
    const conversation = scriptedLLM({ model: "chat-model", stream: [["Arr."]] });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "a" },
          { id: "s2", task: "b" },
        ]),
        analysisReply(true, "done"),
      ],
    });
    const dag = dagHarness({ planner, worker, conversation });
    const input = { ...dag.input, instructions: "Talk like a pirate." };
    const result = await dag.agent.run(input, dag.controller.signal);
    for await (const _ of dag.agent.streamAnswer(result, input, dag.controller.signal)) {
      // drain
    }
    const systems = [...worker.chatCalls, ...conversation.streamCalls].map(
      (call) => call.messages.find((message) => message.role === "system")?.content ?? "",
    );
    expect(systems.length).toBeGreaterThanOrEqual(3);
    for (const system of systems) {
      expect(system).toContain("Talk like a pirate.");
      expect(system.indexOf("Talk like a pirate.")).toBeGreaterThan(0);
    }
  });

  it("synthesis shows a vision model the turn's images with the question, as in ReAct mode", async () => {
    const worker = workerLLM("chat-model", (task) => ({ content: `found ${task}` }));
    const conversation = scriptedLLM({ model: "chat-model", abilities: { vision: true }, stream: [["Seen."]] });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "a" },
          { id: "s2", task: "b", dependencies: ["s1"] },
        ]),
        analysisReply(true, "done"),
      ],
    });
    const dag = dagHarness({ planner, worker, conversation });
    const result = await dag.run();
    const input = { ...dag.input, images: ["aW1hZ2U="] };
    for await (const _ of dag.agent.streamAnswer(result, input, dag.controller.signal)) {
      // drain
    }
    const question = conversation.streamCalls[0]?.messages.at(-1);
    expect(question).toMatchObject({ role: "user", images: ["aW1hZ2U="] });
    expect(question?.content).toContain("### s1: a\nfound a");
  });

  it("numbers the sources of all steps in one list, so each [n] of the answer means one page", async () => {
    const seen = new Set<string>();
    const worker = workerLLM("chat-model", (task) => {
      if (seen.has(task)) return { content: `read ${task}` };
      seen.add(task);
      return { toolCalls: [{ name: "scrape_url", arguments: { url: `https://${task}.test/` } }] };
    });
    const conversation = scriptedLLM({ model: "chat-model", stream: [["ok"]] });
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "s1", task: "a" },
          { id: "s2", task: "b", dependencies: ["s1"] },
        ]),
        analysisReply(true),
      ],
    });
    const tools = fakeToolbox({
      scrape_url: (args) => withSource(toolOk("page"), { url: String(args.url), title: String(args.url) }),
    });
    const dag = dagHarness({ planner, worker, conversation, tools });
    const result = await dag.run();
    expect(result.sources.map(({ n, url }) => `${n} ${url}`)).toEqual(["1 https://a.test/", "2 https://b.test/"]);
    for await (const _ of dag.agent.streamAnswer(result, dag.input, dag.controller.signal)) {
      // drain
    }
    const prompt = conversation.streamCalls[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toContain("[1] https://a.test/ — https://a.test/\n[2] https://b.test/ — https://b.test/");
  });
});
