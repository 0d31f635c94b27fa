import { describe, expect, it } from "vitest";
import { createRemember } from "@/lib/tools/builtin/remember";
import { ToolRegistry } from "@/lib/tools/registry";
import type { MemoryWriter } from "@/lib/tools/services";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { harness, INPUT } from "@/tests/support/agent-harness";
import type { FakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { withMemories } from "./turn-memory";

/** The engine's side of memory (docs/architecture.md, "Projects and memory"), with the scripted model. */

/** The real `remember` behind the engine's toolbox, over an in-memory writer. */
function rememberToolbox(askBeforeSaving: boolean): { tools: FakeToolbox; saved: string[] } {
  const saved: string[] = [];
  const writer: MemoryWriter = {
    async remember(text) {
      if (saved.includes(text)) return { status: "known" };
      if (askBeforeSaving) return { status: "proposed", note: { status: "proposed", text } };
      saved.push(text);
      return { status: "saved", note: { status: "saved", id: `m${saved.length}`, text } };
    },
  };
  const registry = new ToolRegistry().register(createRemember(writer));
  const tools: FakeToolbox = {
    log: [],
    calls: [],
    specs: () => registry.specs(),
    execute: (name, args, signal) =>
      registry.execute(
        name,
        args,
        {
          conversationId: "c",
          signal,
          language: "en",
          urlGuard: new UrlLeakGuard({ MAX_URL_CHARS: 2000, URL_LEAK_MIN_CHARS: 24 }),
        },
        { maxResultChars: 6000 },
      ),
    select: () => tools,
  };
  return { tools, saved };
}

describe("remember in the tool loop", () => {
  it("a saved memory travels in the tool_result step, for the answer's chip", async () => {
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "remember", arguments: { text: " I work in  metric units. " } }] },
        { content: "Noted." },
      ],
    });
    const { tools, saved } = rememberToolbox(false);
    const { steps, run } = harness(llm, tools);
    await run({ question: "Remember: I work in metric units." });
    expect(saved).toEqual(["I work in metric units."]);
    const result = steps.find((step) => step.type === "tool_result");
    expect(result).toMatchObject({
      tool: "remember",
      ok: true,
      memory: { status: "saved", id: "m1", text: "I work in metric units." },
    });
    expect(result?.type === "tool_result" && result.observation).toContain("Saved to the user's memory");
  });

  it("ask before saving: the step carries a proposal and nothing is saved", async () => {
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "remember", arguments: { text: "My team uses PostgreSQL 16." } }] },
        { content: "OK." },
      ],
    });
    const { tools, saved } = rememberToolbox(true);
    const { steps, run } = harness(llm, tools);
    await run();
    expect(saved).toEqual([]);
    expect(steps.find((step) => step.type === "tool_result")).toMatchObject({
      memory: { status: "proposed", text: "My team uses PostgreSQL 16." },
    });
  });
});

describe("memories in the system prompt", () => {
  it("reach the tool loop's and the synthesis's system prompts, after the chat's own instructions", async () => {
    const memory = { active: true, askBeforeSaving: false, prompt: "- I work in metric units.", included: 1, total: 1 };
    const instructions = withMemories("Be brief.", memory, "en");
    const llm = scriptedLLM({
      chat: [{ toolCalls: [{ name: "remember", arguments: { text: "x" } }] }, { content: "draft" }],
      stream: [["Ten kilometres."]],
    });
    const { agent } = harness(llm, rememberToolbox(false).tools);
    const input = { ...INPUT, instructions };
    const result = await agent.run(input, new AbortController().signal);
    for await (const _ of agent.streamAnswer(result, input, new AbortController().signal)) {
      // drained
    }
    const loopSystem = llm.chatCalls[0]?.messages[0]?.content ?? "";
    const synthesisSystem = llm.streamCalls[0]?.messages[0]?.content ?? "";
    for (const system of [loopSystem, synthesisSystem]) {
      expect(system).toContain("- I work in metric units.");
      expect(system.indexOf("Be brief.")).toBeLessThan(system.indexOf("- I work in metric units."));
    }
  });

  it("add nothing when no memory is given", () => {
    expect(withMemories("Be brief.", { active: true, askBeforeSaving: false, included: 0, total: 0 }, "en")).toBe(
      "Be brief.",
    );
  });
});
