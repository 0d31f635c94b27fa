/**
 * What the engine really emits is what the protocol defines: scripted runs in both loops and in
 * DAG mode, every step, answer part, thinking delta, compaction, plan and step progress checked
 * against the schemas the browser's decoder and the import use.
 */
import { describe, expect, it } from "vitest";
import type { CompactionEvent } from "@/lib/agent/context-guard";
import type { ChatMessage } from "@/lib/llm/types";
import { toolError, toolOk, withSource } from "@/lib/tools/outcome";
import { harness } from "@/tests/support/agent-harness";
import { analysisReply, dagHarness, planReply, workerLLM } from "@/tests/support/dag-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { agentStepSchema, runEventSchemas } from "./run-events";

/** The issues of every value a schema refuses, with the value's kind, so a failure says which. */
function refusals(schema: { safeParse(value: unknown): { error?: { issues: unknown[] } } }, values: unknown[]) {
  return values.flatMap((value) => {
    const issues = schema.safeParse(value).error?.issues;
    return issues ? [{ value, issues }] : [];
  });
}

describe("the engine's events", () => {
  it("every step, answer part, thinking delta and compaction of a tool loop is an event the protocol defines", async () => {
    const llm = scriptedLLM({
      chat: [
        {
          reasoning: "Let me look.",
          toolCalls: [
            { id: "s", name: "web_search", arguments: { query: "q" } },
            { id: "p", name: "pdf_to_text", arguments: { url_or_path: "https://example.com/a.pdf" } },
            { id: "d", name: "draw", arguments: { what: "a cat" } },
            { id: "b", name: "scrape_url", arguments: { url: "http://127.0.0.1/" } },
            { id: "u", name: "no_such_tool", arguments: {} },
          ],
        },
        { toolCalls: [{ id: "x", name: "web_search", arguments: { query: "more" } }] },
        { toolCalls: [{ id: "y", name: "web_search", arguments: { query: "again" } }] },
        { content: "The answer.", reasoning: "Done now." },
      ],
    });
    const tools = fakeToolbox({
      web_search: () => ({
        ok: true,
        output: '[{"title":"t"}]',
        results: [{ title: "t", url: "https://example.com/", snippet: "s" }],
      }),
      pdf_to_text: () =>
        withSource(toolOk("Page text", { nextToken: "T", sourcePages: { first: 1, last: 2, total: 5 } }), {
          url: "https://example.com/a.pdf",
          title: "A",
        }),
      draw: () => ({
        ok: true,
        output: "",
        artifact: { filename: "cat.png", mimeType: "image/png", content: "iVBORw0KGgo=" },
      }),
      scrape_url: () => toolError("blocked_url", "That address is not allowed."),
    });
    const answer: unknown[] = [];
    const thinking: unknown[] = [];
    const compactions: CompactionEvent[] = [];
    const { run, steps } = harness(llm, tools, {
      limits: { maxToolRounds: 2 },
      onAnswer: (part) => answer.push(part),
      onThinking: (delta) => thinking.push(delta),
      onCompact: (event) => compactions.push(event),
    });
    await run();
    const kinds = new Set(steps.map((step) => step.type));
    expect([...kinds].sort()).toEqual(["notice", "thinking", "tool_call", "tool_result"]);
    const results = steps.filter((step) => step.type === "tool_result");
    // Results come in finishing order.
    const byCall = results
      .map((step) => [step.callId, step.ok ? Boolean(step.paging || step.artifact || step.results) : step.errorKind])
      .sort(([a], [b]) => String(a).localeCompare(String(b)));
    expect(byCall).toEqual([
      ["b", "blocked_url"],
      ["d", true],
      ["p", true],
      ["s", true],
      ["u", "unknown_tool"],
      ["x", true],
      ["y", "not_run"],
    ]);
    expect(refusals(agentStepSchema, steps)).toEqual([]);
    expect(
      refusals(
        runEventSchemas.step,
        steps.map((step, seq) => ({ ...step, seq, at: 0 })),
      ),
    ).toEqual([]);
    // A first reply without a tool call streams as the answer (the fast path).
    const direct = harness(scriptedLLM({ chat: [{ content: "Right away.", reasoning: "Easy." }] }), fakeToolbox({}), {
      onAnswer: (part) => answer.push(part),
      onThinking: (delta) => thinking.push(delta),
    });
    await direct.run();
    expect(refusals(agentStepSchema, direct.steps)).toEqual([]);
    expect(answer.map((part) => (part as { status: string }).status)).toContain("delta");
    expect(refusals(runEventSchemas.answer, answer)).toEqual([]);
    expect(refusals(runEventSchemas.thinking, thinking)).toEqual([]);
    const compacted = compactions.map(({ summary: _, replaced: __, ...compaction }) => compaction);
    expect(refusals(runEventSchemas.compact, compacted)).toEqual([]);
  });

  it("a tool failure's step carries its kind, and a page's where its footer begins", async () => {
    const llm = scriptedLLM({
      chat: [
        {
          toolCalls: [
            { id: "b", name: "scrape_url", arguments: { url: "http://127.0.0.1/" } },
            { id: "p", name: "pdf_to_text", arguments: {} },
          ],
        },
        { content: "done" },
      ],
    });
    const tools = fakeToolbox({
      scrape_url: () => toolError("blocked_url", "That address is not allowed."),
      pdf_to_text: () => toolOk("Page text", { nextToken: "T" }),
    });
    const { run, steps } = harness(llm, tools);
    await run();
    const results = steps.filter((step) => step.type === "tool_result");
    expect(results.map((step) => [step.callId, step.errorKind])).toEqual([
      ["b", "blocked_url"],
      ["p", undefined],
    ]);
    const page = results[1];
    expect(page?.paging).toEqual({ nextToken: "T", bodyChars: "Page text".length });
    expect(page?.observation.slice(0, page.paging?.bodyChars)).toBe("Page text");
  });

  it("every plan, step progress and scoped step of a DAG run is an event the protocol defines", async () => {
    const worker = workerLLM("chat-model", (task, messages: ChatMessage[]) =>
      messages.some((message) => message.role === "tool")
        ? { content: `found ${task}` }
        : { toolCalls: [{ name: "web_search", arguments: { query: task } }] },
    );
    const planner = scriptedLLM({
      model: "reasoning-model",
      chat: [
        planReply([
          { id: "a", task: "find A", tool_hint: "web_search", model_hint: "fast" },
          { id: "b", task: "compare", dependencies: ["a"] },
        ]),
        analysisReply(true, "The answer."),
      ],
    });
    const dag = dagHarness({ planner, worker });
    await dag.run();
    expect(dag.plans.length).toBeGreaterThan(0);
    expect(dag.statuses()).toContain("b done");
    expect(dag.steps.some((step) => step.stepId === "a" && step.type === "tool_result")).toBe(true);
    expect(refusals(runEventSchemas.plan, dag.plans)).toEqual([]);
    expect(refusals(runEventSchemas.step_progress, dag.progress)).toEqual([]);
    expect(
      refusals(
        runEventSchemas.step,
        dag.steps.map((step, seq) => ({ ...step, seq, at: 0 })),
      ),
    ).toEqual([]);
  });
});
