import { describe, expect, it } from "vitest";
import { harness } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";
import { catalogue } from "./tool-selection";

const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`tool_${i}`, () => `r${i}`]));
const long = { tool_0: `${"A very long description ".repeat(10)}\nsecond line` };

function run20(selection: ScriptedChat[]) {
  const llm = scriptedLLM({ chat: [...selection, { content: "answer" }] });
  const { run, steps } = harness(llm, fakeToolbox(twenty, long));
  return { llm, steps, run };
}

describe("tool selection", () => {
  it("above the threshold, picks tools with one structured call over a compact catalogue and filters the registry", async () => {
    const { llm, steps, run } = run20([
      { toolCalls: [{ name: "select_tools", arguments: { tools: ["tool_3", "tool_7"] } }] },
    ]);
    await run();
    const selectionPrompt = llm.chatCalls[0]?.messages[0]?.content ?? "";
    expect(selectionPrompt).toContain("- tool_19: The tool_19 tool");
    expect(selectionPrompt).not.toContain("parameters");
    expect(selectionPrompt).not.toContain("second line");
    expect(llm.chatCalls[1]?.options.tools?.map((t) => t.name)).toEqual(["tool_3", "tool_7"]);
    expect(steps[0]).toEqual({
      type: "tool_selection",
      iteration: 0,
      selected: ["tool_3", "tool_7"],
      total: 20,
      structured: { level: "native", calls: 1 },
    });
  });

  it("keeps at most TOOL_SELECTION_MAX and drops unknown or repeated names", async () => {
    const names = ["ghost", "tool_1", "tool_1", "tool_2", "tool_3", "tool_4", "tool_5", "tool_6", "tool_7"];
    const { llm, run } = run20([{ toolCalls: [{ name: "select_tools", arguments: { tools: names } }] }]);
    await run();
    expect(llm.chatCalls[1]?.options.tools?.map((t) => t.name)).toEqual([
      "tool_1",
      "tool_2",
      "tool_3",
      "tool_4",
      "tool_5",
      "tool_6",
    ]);
  });

  it("falls back to the full set when every name is invalid", async () => {
    const bad = { toolCalls: [{ name: "select_tools", arguments: { tools: ["nope"] } }] };
    const { llm, steps, run } = run20([
      bad,
      { content: '{"tools":["x"]}' },
      { content: "?" },
      { content: "?" },
      { content: "?" },
    ]);
    await run();
    expect(llm.chatCalls.at(-1)?.options.tools).toHaveLength(20);
    expect(steps[0]).toMatchObject({
      type: "tool_selection",
      total: 20,
      fellBack: true,
      structured: { level: "default", calls: 5 },
    });
    expect((steps[0] as { selected: string[] }).selected).toHaveLength(20);
  });

  it("a failed selection says it fell back; a selection that chose does not", async () => {
    const boom = new Error("model crashed");
    const failed = run20([boom, boom, boom]);
    await failed.run();
    expect(failed.steps[0]).toMatchObject({ type: "tool_selection", total: 20, fellBack: true });
    const chose = run20([{ toolCalls: [{ name: "select_tools", arguments: { tools: ["tool_3"] } }] }]);
    await chose.run();
    expect(chose.steps[0]).not.toHaveProperty("fellBack");
  });

  it("falls back to the full set when the output cannot be parsed", async () => {
    const { llm, run } = run20([
      { content: "hmm" },
      { content: "no" },
      { content: "no" },
      { content: "no" },
      { content: "no" },
    ]);
    await run();
    expect(llm.chatCalls.at(-1)?.options.tools).toHaveLength(20);
  });

  it("falls back to the full set when the selection call throws", async () => {
    const boom = new Error("model crashed");
    const { llm, run } = run20([boom, boom, boom]);
    await run();
    expect(llm.chatCalls.at(-1)?.options.tools).toHaveLength(20);
  });

  it("does not run at or below the threshold", async () => {
    const llm = scriptedLLM({ chat: [{ content: "a" }] });
    const tools = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}`, () => ""]));
    await harness(llm, fakeToolbox(tools)).run();
    expect(llm.chatCalls).toHaveLength(1);
  });

  it("catalogue lines stay within about 80 characters", () => {
    const lines = catalogue([{ name: "x", description: "d".repeat(300), parameters: {} }]).split("\n");
    expect(lines[0]?.length).toBeLessThanOrEqual(80);
  });
});
