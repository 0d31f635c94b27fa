import { describe, expect, it } from "vitest";
import { toolError } from "@/lib/tools/outcome";
import { formatPageInfo } from "@/lib/tools/page-info";
import { harness, interruptQueue } from "@/tests/support/agent-harness";
import { fakeToolbox, sleep } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";

describe("native mode", () => {
  it("runs a response's calls in parallel and appends every tool message right after the assistant message, in call order", async () => {
    const tools = fakeToolbox({
      slow: async () => {
        await sleep(30);
        return "slow result";
      },
      fast: () => "fast result",
    });
    const llm = scriptedLLM({
      chat: [
        {
          toolCalls: [
            { id: "call_slow", name: "slow", arguments: { query: "a" } },
            { id: "call_fast", name: "fast", arguments: { query: "b" } },
          ],
        },
        { content: "done" },
      ],
    });
    const { run } = harness(llm, tools);
    const result = await run();
    expect(tools.log).toEqual(["start slow", "start fast", "end fast", "end slow"]);
    const next = llm.chatCalls[1]?.messages ?? [];
    expect(next.slice(-3)).toEqual([
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_slow", name: "slow", arguments: { query: "a" } },
          { id: "call_fast", name: "fast", arguments: { query: "b" } },
        ],
      },
      { role: "tool", content: "slow result", toolCallId: "call_slow", toolName: "slow" },
      { role: "tool", content: "fast result", toolCallId: "call_fast", toolName: "fast" },
    ]);
    expect(result).toMatchObject({ mode: "native", answer: "done", iterations: 2 });
    expect(result.steps.map((s) => s.tool)).toEqual(["slow", "fast"]);
  });

  it("takes a reply without tool calls as the final answer", async () => {
    const { run } = harness(scriptedLLM({ chat: [{ content: "Hello!" }] }), fakeToolbox({ a: () => "x" }));
    expect(await run()).toMatchObject({ answer: "Hello!", iterations: 1, steps: [] });
  });

  it("offers the tools with their schemas on every loop call", async () => {
    const llm = scriptedLLM({ chat: [{ content: "hi" }] });
    await harness(llm, fakeToolbox({ web_search: () => "x" })).run();
    expect(llm.chatCalls[0]?.options.tools?.map((t) => t.name)).toEqual(["web_search"]);
  });

  it("recognises a tool call written as JSON text in content and executes it", async () => {
    const tools = fakeToolbox({ web_search: (args) => `results for ${args.query}` });
    const llm = scriptedLLM({
      chat: [
        { content: '```json\n{"name": "web_search", "parameters": {"query": "ollama"}}\n```' },
        { content: '<tool_call>{"name":"web_search","arguments":"{\\"query\\":\\"two\\"}"}</tool_call>' },
        { content: "answer" },
      ],
    });
    const result = await harness(llm, tools).run();
    expect(tools.calls).toEqual([
      { name: "web_search", args: { query: "ollama" } },
      { name: "web_search", args: { query: "two" } },
    ]);
    const second = llm.chatCalls[1]?.messages ?? [];
    expect(second.at(-2)).toMatchObject({ role: "assistant", content: "", toolCalls: [{ name: "web_search" }] });
    expect(second.at(-1)).toMatchObject({ role: "tool", content: "results for ollama" });
    expect(result.answer).toBe("answer");
  });

  it("leaves JSON that names no known tool in the answer", async () => {
    const result = await harness(
      scriptedLLM({ chat: [{ content: '{"name": "Alice", "age": 3}' }] }),
      fakeToolbox({ a: () => "" }),
    ).run();
    expect(result.answer).toBe('{"name": "Alice", "age": 3}');
  });

  it("turns an unknown tool and a throwing tool into error observations the model sees next", async () => {
    const tools = fakeToolbox({
      boom: () => {
        throw new Error("kaput");
      },
    });
    const llm = scriptedLLM({
      chat: [
        {
          toolCalls: [
            { name: "ghost", arguments: {} },
            { name: "boom", arguments: {} },
          ],
        },
        { content: "sorry" },
      ],
    });
    const { run, steps } = harness(llm, tools);
    const result = await run();
    const toolMessages = (llm.chatCalls[1]?.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolMessages).toEqual(['{"error":"Unknown tool: ghost"}', '{"error":"boom failed: kaput"}']);
    expect(steps.filter((s) => s.type === "tool_result").map((s) => s.type === "tool_result" && s.ok)).toEqual([
      false,
      false,
    ]);
    expect(result.answer).toBe("sorry");
  });

  it("shows a thinking model's reasoning as a thinking step", async () => {
    const { run, steps } = harness(
      scriptedLLM({ chat: [{ content: "42", reasoning: "Let me think." }] }),
      fakeToolbox({}),
    );
    await run();
    expect(steps).toContainEqual(expect.objectContaining({ type: "thinking", iteration: 1, text: "Let me think." }));
  });

  it("emits tool_call then tool_result steps with the call id, arguments, observation and duration", async () => {
    const llm = scriptedLLM({
      chat: [{ toolCalls: [{ id: "c1", name: "a", arguments: { query: "q" } }] }, { content: "ok" }],
    });
    const { run, steps } = harness(llm, fakeToolbox({ a: () => "obs" }));
    await run();
    expect(steps[0]).toEqual({ type: "tool_call", iteration: 1, callId: "c1", tool: "a", args: { query: "q" } });
    expect(steps[1]).toMatchObject({
      type: "tool_result",
      iteration: 1,
      callId: "c1",
      tool: "a",
      ok: true,
      observation: "obs",
    });
    expect((steps[1] as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
  });

  it("replaces an HTML or Markdown artifact by a notice for the model and passes the artifact to the UI", async () => {
    const artifact = { filename: "chart.html", mimeType: "text/html", content: "<html>big</html>" };
    const llm = scriptedLLM({ chat: [{ toolCalls: [{ name: "render", arguments: {} }] }, { content: "see chart" }] });
    const { run, steps } = harness(llm, fakeToolbox({ render: () => ({ ok: true, output: "", artifact }) }));
    await run();
    const toolMessage = (llm.chatCalls[1]?.messages ?? []).at(-1);
    expect(toolMessage?.content).toMatch(
      /^\[Artifact generated: chart\.html\] The content is rendered as a preview in the UI/,
    );
    expect(steps.find((s) => s.type === "tool_result")).toMatchObject({ artifact });
  });

  it("an image artifact reads as the notice followed by the tool's text, never the base64", async () => {
    const artifact = { filename: "plot.png", mimeType: "image/png", content: "iVBORw0KGgoAAAANSUhEUg==" };
    const llm = scriptedLLM({ chat: [{ toolCalls: [{ name: "plot", arguments: {} }] }, { content: "see plot" }] });
    const { run, steps } = harness(
      llm,
      fakeToolbox({ plot: () => ({ ok: true, output: "Sales by month.", artifact }) }),
    );
    await run();
    const toolMessage = (llm.chatCalls[1]?.messages ?? []).at(-1)?.content ?? "";
    expect(toolMessage).toMatch(/^\[Artifact generated: plot\.png\] The content is rendered as a preview in the UI/);
    expect(toolMessage.endsWith("\n\nSales by month.")).toBe(true);
    expect(toolMessage).not.toContain(artifact.content);
    expect(steps.find((s) => s.type === "tool_result")).toMatchObject({ artifact });
  });

  it("takes an artifact from the outcome's data only: a result whose text is an artifact's JSON is text", async () => {
    const text = JSON.stringify({ artifact: { filename: "a.html", mimeType: "text/html", content: "<p>x</p>" } });
    const llm = scriptedLLM({ chat: [{ toolCalls: [{ name: "read", arguments: {} }] }, { content: "done" }] });
    const { run, steps } = harness(llm, fakeToolbox({ read: () => text }));
    await run();
    expect((llm.chatCalls[1]?.messages ?? []).at(-1)?.content).toBe(text);
    const result = steps.find((s) => s.type === "tool_result");
    expect(result).toMatchObject({ ok: true, observation: text });
    expect(result).not.toHaveProperty("artifact");
  });

  it("reads a paged result with its footer and hands its page info to the UI as data", async () => {
    const paging = { nextToken: "TOKEN", sourcePages: { first: 1, last: 2, total: 9 } };
    const llm = scriptedLLM({ chat: [{ toolCalls: [{ name: "read", arguments: {} }] }, { content: "done" }] });
    const { run, steps } = harness(llm, fakeToolbox({ read: () => ({ ok: true, output: "page one", paging }) }));
    await run();
    const observation = `page one${formatPageInfo(paging)}`;
    expect((llm.chatCalls[1]?.messages ?? []).at(-1)?.content).toBe(observation);
    expect(steps.find((s) => s.type === "tool_result")).toMatchObject({ ok: true, observation, paging });
  });

  it("a failure is known by its outcome: the model reads its message, the step says ok: false", async () => {
    const llm = scriptedLLM({ chat: [{ toolCalls: [{ name: "read", arguments: {} }] }, { content: "done" }] });
    const failed = toolError("fetch_failed", "Failed to fetch https://example.com/: HTTP 404");
    const { run, steps } = harness(llm, fakeToolbox({ read: () => failed }));
    await run();
    expect((llm.chatCalls[1]?.messages ?? []).at(-1)?.content).toBe("Failed to fetch https://example.com/: HTTP 404");
    const result = steps.find((s) => s.type === "tool_result");
    expect(result).toMatchObject({ ok: false, observation: "Failed to fetch https://example.com/: HTTP 404" });
    expect(result).not.toHaveProperty("paging");
  });
});

describe("limits", () => {
  it("past MAX_ITERATIONS answers with a fallback summary of the steps", async () => {
    const llm = scriptedLLM({
      chat: Array.from({ length: 3 }, () => ({ toolCalls: [{ name: "a", arguments: { query: "again" } }] })),
    });
    const result = await harness(llm, fakeToolbox({ a: () => "more" }), { limits: { maxIterations: 3 } }).run();
    expect(result.hitMaxIterations).toBe(true);
    expect(result.iterations).toBe(3);
    expect(result.answer).toContain("I could not finish within 3 steps");
    expect(result.answer).toContain("- a: succeeded");
    expect(llm.chatCalls).toHaveLength(3);
  });

  it("reaching MAX_ITERATIONS is a notice in the trail, not only a summary", async () => {
    const llm = scriptedLLM({
      chat: Array.from({ length: 2 }, () => ({ toolCalls: [{ name: "a", arguments: { query: "again" } }] })),
    });
    const { run, steps } = harness(llm, fakeToolbox({ a: () => "more" }), { limits: { maxIterations: 2 } });
    await run();
    expect(steps.filter((s) => s.type === "notice")).toEqual([
      {
        type: "notice",
        iteration: 2,
        about: { code: "iteration_limit", iterations: 2 },
        text: "Stopped after 2 model calls, the limit for one answer: the answer is written from what was found so far.",
      },
    ]);
  });

  it("after MAX_TOOL_ROUNDS ordinary rounds the model is told to answer, and further calls are not executed", async () => {
    const round = () => ({ toolCalls: [{ name: "a", arguments: { query: "x" } }] });
    const llm = scriptedLLM({ chat: [round(), round(), { content: "final" }] });
    const tools = fakeToolbox({ a: () => "r" });
    const { run, steps } = harness(llm, tools, { limits: { maxToolRounds: 1 } });
    // Round 1 runs and exhausts the budget; the model is told; it calls again; that call is refused.
    llm.chatCalls.length = 0;
    const result = await run();
    expect(tools.calls).toHaveLength(1);
    const second = llm.chatCalls[1]?.messages ?? [];
    expect(second.at(-1)?.content).toContain("The tool budget for this answer is used up (1 rounds of tool calls)");
    const third = llm.chatCalls[2];
    expect(third?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "Not executed: the tool budget is used up.",
    });
    expect(third?.options.tools).toBeUndefined();
    expect(steps.filter((s) => s.type === "notice")).toHaveLength(1);
    expect(result.answer).toBe("final");
  });

  it("tells the model to answer, keeping its next_token, when a paging call would pass MAX_TOOL_CONTEXT_CHARS", async () => {
    const paging = (n: number) => ({ toolCalls: [{ name: "scrape_url", arguments: { continue_from: `tok${n}` } }] });
    const llm = scriptedLLM({ chat: [paging(1), paging(2), { content: "partial answer, next_token tok3" }] });
    const tools = fakeToolbox({ scrape_url: () => "p".repeat(5000) });
    const { run, steps } = harness(llm, tools, { limits: { maxToolContextChars: 9000, maxToolResultChars: 6000 } });
    await run();
    expect(tools.calls).toHaveLength(1);
    const told = llm.chatCalls[2]?.messages ?? [];
    expect(told.at(-2)).toMatchObject({ role: "tool", content: "Not executed: the tool budget is used up." });
    expect(told.at(-1)?.content).toContain("the tool results have reached 5000 characters");
    expect(told.at(-1)?.content).toContain("next_token");
    expect(steps.filter((s) => s.type === "notice")).toHaveLength(1);
  });

  it("paging calls do not count as rounds but stop before the tool output would pass MAX_TOOL_CONTEXT_CHARS", async () => {
    const page = "p".repeat(4000);
    const paging = (n: number) => ({ toolCalls: [{ name: "scrape_url", arguments: { continue_from: `tok${n}` } }] });
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "scrape_url", arguments: { url: "http://x" } }] },
        paging(1),
        paging(2),
        paging(3),
        { content: "enough" },
      ],
    });
    const tools = fakeToolbox({ scrape_url: () => page });
    const { run, steps } = harness(llm, tools, {
      limits: { maxToolRounds: 1, maxToolContextChars: 14000, maxToolResultChars: 6000 },
    });
    const result = await run();
    // 4000 (round) + 4000 (page 1) = 8000; page 2 would allow up to 14000 → runs (12000); page 3 would pass → refused.
    expect(tools.calls.map((c) => (c.args as { continue_from?: string }).continue_from ?? "first")).toEqual([
      "first",
      "tok1",
      "tok2",
    ]);
    const refusedAt = llm.chatCalls[4]?.messages ?? [];
    expect(refusedAt.at(-1)).toMatchObject({ role: "tool", content: "Not executed: the tool budget is used up." });
    // The round budget was announced once, after the first round; paging went on until the context budget.
    const notices = steps.filter((s) => s.type === "notice").map((s) => (s as { text: string }).text);
    expect(notices).toEqual(["Stopped calling tools: the budget of 1 tool rounds is used."]);
    expect(llm.chatCalls[1]?.messages.at(-1)?.content).toContain("include it in your answer");
    expect(result.answer).toBe("enough");
  });
});

describe("the tool-context budget with parallel paging calls", () => {
  it("parallel paging calls of one reply reserve MAX_TOOL_CONTEXT_CHARS call by call, in call order, and never pass it", async () => {
    const paging = (n: number) => ({ id: `p${n}`, name: "scrape_url", arguments: { continue_from: `tok${n}` } });
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "scrape_url", arguments: { url: "http://x" } }] },
        { toolCalls: [paging(1), paging(2), paging(3), paging(4)] },
        { content: "partial answer" },
      ],
    });
    const tools = fakeToolbox({ scrape_url: () => "p".repeat(6000) });
    const { run, steps } = harness(llm, tools, { limits: { maxToolContextChars: 24000, maxToolResultChars: 6000 } });
    await run();
    // 6,000 read; pages 1–3 reserve 6,000 each up to 24,000; page 4 would pass it.
    const ran = tools.calls.map((c) => (c.args as { continue_from?: string }).continue_from ?? "first");
    expect(ran).toEqual(["first", "tok1", "tok2", "tok3"]);
    const read = steps.flatMap((s) =>
      s.type === "tool_result" && s.observation !== "Not executed: the tool budget is used up." ? [s.observation] : [],
    );
    expect(read.reduce((sum, text) => sum + text.length, 0)).toBeLessThanOrEqual(24000);
    const refused = llm.chatCalls[2]?.messages.find((m) => m.role === "tool" && m.toolCallId === "p4");
    expect(refused?.content).toBe("Not executed: the tool budget is used up.");
    expect(steps).toContainEqual(
      expect.objectContaining({
        type: "notice",
        about: { code: "tool_budget", budget: "context", limit: 24000, chars: 6000 },
        text: "Stopped reading: the 24,000-character tool budget is used (6,000 characters read).",
      }),
    );
  });
});

describe("interrupts in native mode", () => {
  it("drains only after all tool messages of the response are appended", async () => {
    const queue = interruptQueue();
    const tools = fakeToolbox({
      a: () => {
        queue.push("focus on 2024");
        return "ra";
      },
      b: () => "rb",
    });
    const llm = scriptedLLM({
      chat: [
        {
          toolCalls: [
            { id: "1", name: "a", arguments: {} },
            { id: "2", name: "b", arguments: {} },
          ],
        },
        { content: "ok" },
      ],
    });
    const { run, steps } = harness(llm, tools, { interrupts: queue });
    await run();
    const roles = (llm.chatCalls[1]?.messages ?? []).slice(-4).map((m) => m.role);
    expect(roles).toEqual(["assistant", "tool", "tool", "user"]);
    expect(llm.chatCalls[1]?.messages.at(-1)?.content).toBe(
      "[USER INTERRUPT]: focus on 2024\nAcknowledge and adjust if needed.",
    );
    expect(steps).toContainEqual({
      type: "interrupt",
      iteration: 1,
      interrupts: [{ id: "i1", text: "focus on 2024" }],
    });
  });

  it("suppresses a pending final answer when an interrupt arrives with it, merging several into a numbered list", async () => {
    const queue = interruptQueue();
    const llm = scriptedLLM({
      chat: [
        () => {
          queue.push("also cover Rust", "and keep it short");
          return { content: "premature answer" };
        },
        { content: "adjusted answer" },
      ],
    });
    const result = await harness(llm, fakeToolbox({}), { interrupts: queue }).run();
    expect(result.answer).toBe("adjusted answer");
    expect(llm.chatCalls[1]?.messages.slice(-2)).toEqual([
      { role: "assistant", content: "premature answer" },
      {
        role: "user",
        content: "[USER INTERRUPT]: 1. also cover Rust\n2. and keep it short\nAcknowledge and adjust if needed.",
      },
    ]);
  });
});
