import { describe, expect, it } from "vitest";
import type { ReplyPart } from "@/lib/llm/types";
import type { AnswerPart, ThinkingDelta } from "@/lib/protocol/run-events";
import { harness, interruptQueue } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";

/** An agent whose direct answers stream through `onAnswer`, logging answer events and model parts in order. */
function fastPath(
  chat: ScriptedChat[],
  options: { json?: boolean; interrupts?: ReturnType<typeof interruptQueue>; onDelta?: () => void } = {},
) {
  const log: string[] = [];
  const answer: AnswerPart[] = [];
  const thinking: ThinkingDelta[] = [];
  const llm = scriptedLLM({
    chat,
    onPart: (part: ReplyPart) => log.push(`model ${part.type}`),
  });
  const tools = fakeToolbox({ web_search: () => "results" });
  const agent = harness(llm, tools, {
    toolCalling: options.json ? "json" : "native",
    interrupts: options.interrupts,
    onAnswer: (part) => {
      answer.push(part);
      log.push(`answer ${part.status}`);
      if (part.status === "delta") options.onDelta?.();
    },
    onThinking: (delta) => {
      thinking.push(delta);
      log.push("thinking");
    },
  });
  const shown = () => {
    let text = "";
    for (const part of answer) {
      if (part.status === "start") text = "";
      if (part.status === "delta") text += part.content;
    }
    return text;
  };
  const deltas = () => answer.flatMap((part) => (part.status === "delta" ? [part.content] : []));
  return { ...agent, llm, tools, log, answer, thinking, shown, deltas };
}

describe("the fast path for direct answers", () => {
  it("a direct answer makes exactly one model call and its deltas arrive before the reply ends", async () => {
    const turn = fastPath([{ chunks: ["Paris ", "is the ", "capital."] }]);
    const result = await turn.run();
    expect(result.direct).toBe(true);
    expect(result.answer).toBe("Paris is the capital.");
    expect(turn.llm.chatCalls).toHaveLength(1);
    expect(turn.llm.chatCalls[0]?.streamed).toBe(true);
    expect(turn.answer[0]).toEqual({ status: "start" });
    expect(turn.deltas()).toEqual(["Paris ", "is the ", "capital."]);
    expect(turn.log.indexOf("answer delta")).toBeLessThan(turn.log.indexOf("model finish"));
  });

  it("a native tool call streamed in a reply is executed and no answer text is shown", async () => {
    const turn = fastPath([
      { toolCalls: [{ name: "web_search", arguments: { query: "q" } }] },
      { content: "From the results." },
    ]);
    const result = await turn.run();
    expect(turn.tools.calls).toEqual([{ name: "web_search", args: { query: "q" } }]);
    expect(result.direct).toBe(false);
    expect(turn.answer).toEqual([]);
    expect(result.answer).toBe("From the results.");
  });

  it.each([
    ["bare JSON", '{"name": "web_search", "arguments": {"query": "q"}}'],
    ["fenced JSON", '```json\n{"name": "web_search", "arguments": {"query": "q"}}\n```'],
    ["a <tool_call> tag", '<tool_call>\n{"name": "web_search", "arguments": {"query": "q"}}\n</tool_call>'],
  ])("a text-written tool call (%s) is executed and never appears as answer deltas", async (_kind, text) => {
    const turn = fastPath([{ content: text }, { content: "Done." }]);
    const result = await turn.run();
    expect(turn.tools.calls).toEqual([{ name: "web_search", args: { query: "q" } }]);
    expect(turn.deltas().join("")).not.toContain("web_search");
    expect(turn.answer).toEqual([]);
    expect(result.direct).toBe(false);
  });

  it("held-back text that turns out to be prose is released as the answer", async () => {
    const turn = fastPath([{ chunks: ["{braces} ", "are used ", "in JSON."] }]);
    const result = await turn.run();
    expect(result.direct).toBe(true);
    expect(turn.shown()).toBe("{braces} are used in JSON.");
    expect(turn.llm.chatCalls).toHaveLength(1);
  });

  it("a code block in any language but JSON is prose from its first line", async () => {
    const turn = fastPath([{ chunks: ["```python\n", "print(1)\n", "```"] }]);
    await turn.run();
    expect(turn.log.indexOf("answer delta")).toBeLessThan(turn.log.indexOf("model finish"));
    expect(turn.shown()).toBe("```python\nprint(1)\n```");
  });

  it("a reply that streamed text and then calls a tool discards the shown text with a second answer start", async () => {
    const turn = fastPath([
      {
        chunks: ["Let me look that up.\n", '{"name": "web_search", "arguments": {"query": "q"}}'],
      },
      { content: "Found it." },
    ]);
    const result = await turn.run();
    expect(turn.tools.calls).toHaveLength(1);
    expect(turn.answer.filter((part) => part.status === "start")).toHaveLength(2);
    expect(turn.shown()).toBe("");
    expect(result.direct).toBe(false);
  });

  it("JSON mode streams final_answer's answer as it is decoded", async () => {
    const turn = fastPath(
      [
        {
          chunks: ['{"type":"final_answer","reasoning":"easy","answer":"Line one', '\\nline \\"two\\" \\u00e9', '"}'],
        },
      ],
      { json: true },
    );
    const result = await turn.run();
    expect(result.direct).toBe(true);
    expect(turn.llm.chatCalls).toHaveLength(1);
    expect(turn.deltas()).toEqual(["Line one", '\nline "two" é']);
    expect(turn.log.indexOf("answer delta")).toBeLessThan(turn.log.indexOf("model finish"));
  });

  it("JSON mode shows nothing of a tool_call action", async () => {
    const turn = fastPath(
      [
        { content: '{"type":"tool_call","reasoning":"need data","tool_name":"web_search","tool_args":{"query":"q"}}' },
        { content: '{"type":"final_answer","reasoning":"done","answer":"Found."}' },
      ],
      { json: true },
    );
    const result = await turn.run();
    expect(turn.tools.calls).toHaveLength(1);
    expect(turn.answer).toEqual([]);
    expect(result.direct).toBe(false);
  });

  it("thinking deltas are emitted live, before the reply's text", async () => {
    const turn = fastPath([{ reasoning: "Think about it.", content: "Answer." }]);
    await turn.run();
    expect(turn.thinking.map((delta) => delta.delta).join("")).toBe("Think about it.");
    expect(turn.thinking.every((delta) => delta.iteration === 1)).toBe(true);
    expect(turn.log.indexOf("thinking")).toBeLessThan(turn.log.indexOf("model text"));
    expect(turn.steps).toContainEqual(expect.objectContaining({ type: "thinking", text: "Think about it." }));
  });

  it("an interrupt that arrives once a direct answer is on screen leaves the answer standing and waits for the next turn", async () => {
    const interrupts = interruptQueue();
    const turn = fastPath([{ chunks: ["Paris ", "is the capital."] }], {
      interrupts,
      onDelta: () => {
        if (interrupts.size === 0 && turn.deltas().length === 1) interrupts.push("also mention Lyon");
      },
    });
    const result = await turn.run();
    expect(result.direct).toBe(true);
    expect(turn.shown()).toBe("Paris is the capital.");
    expect(turn.llm.chatCalls).toHaveLength(1);
    expect(interrupts.drain()).toEqual([{ id: "i1", text: "also mention Lyon" }]);
  });

  it.each([
    ["native", false, { content: "Paris." }, { content: "Paris, and Lyon too." }],
    [
      "JSON",
      true,
      { content: '{"type":"final_answer","reasoning":"easy","answer":"Paris."}' },
      { content: '{"type":"final_answer","reasoning":"asked","answer":"Paris, and Lyon too."}' },
    ],
  ])(
    "%s mode: a follow-up queued before the answer's first character was shown suppresses the pending answer and the loop goes on with it",
    async (_mode, json, first, second) => {
      const interrupts = interruptQueue();
      const turn = fastPath(
        [
          () => {
            interrupts.push("also mention Lyon");
            return first;
          },
          second,
        ],
        { interrupts, json },
      );
      const result = await turn.run();
      expect(turn.llm.chatCalls).toHaveLength(2);
      expect(turn.llm.chatCalls[1]?.messages.at(-1)?.content).toContain("[USER INTERRUPT]: also mention Lyon");
      expect(turn.shown()).toBe("Paris, and Lyon too.");
      expect(turn.deltas().join("")).not.toMatch(/^Paris\.$/);
      expect(turn.answer.filter((part) => part.status === "start")).toHaveLength(1);
      expect(result).toMatchObject({ direct: true, answer: "Paris, and Lyon too.", followUps: ["also mention Lyon"] });
      expect(interrupts.size).toBe(0);
    },
  );

  it("turns that used tools keep synthesis: later replies are not streamed as the answer", async () => {
    const turn = fastPath([{ toolCalls: [{ name: "web_search", arguments: { query: "q" } }] }, { content: "Draft." }]);
    const result = await turn.run();
    expect(result.direct).toBe(false);
    expect(turn.answer).toEqual([]);
  });
});
