import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import { harness, interruptQueue } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { type CompactionEvent, ContextGuard, estimateTokens } from "./context-guard";

const big = (label: string, chars = 4000) => `${label} ${"x".repeat(chars)}`;

function conversation(): { messages: ChatMessage[]; question: ChatMessage } {
  const question: ChatMessage = { role: "user", content: "What changed in 2024?" };
  const messages: ChatMessage[] = [{ role: "system", content: "sys" }, question];
  for (let i = 0; i < 6; i++) {
    messages.push({
      role: "assistant",
      content: "",
      toolCalls: [{ id: `c${i}`, name: "scrape_url", arguments: { url: `u${i}` } }],
    });
    messages.push({ role: "tool", content: big(`result ${i}`), toolCallId: `c${i}`, toolName: "scrape_url" });
  }
  return { messages, question };
}

/** Every assistant message with tool calls is followed directly by one tool message per call. */
function expectPairsIntact(messages: ChatMessage[]) {
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const before = messages.slice(0, index).reverse();
      const owner = before.find((m) => m.role !== "tool");
      expect(owner?.role).toBe("assistant");
      expect((owner as { toolCalls?: { id: string }[] }).toolCalls?.some((c) => c.id === message.toolCallId)).toBe(
        true,
      );
    }
    if (message.role === "assistant" && message.toolCalls?.length) {
      const next = messages.slice(index + 1, index + 1 + message.toolCalls.length);
      expect(next.map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual(message.toolCalls.map((c) => c.id));
    }
  });
}

describe("token estimate", () => {
  it("counts ASCII characters / 4, other characters / 1.5, plus 4 a message", () => {
    expect(estimateTokens([{ role: "user", content: "abcdefgh" }])).toBe(6);
    expect(estimateTokens([{ role: "user", content: "日本語" }])).toBe(6);
    expect(estimateTokens([])).toBe(0);
  });

  it("is corrected by the prompt_eval_count Ollama reports", () => {
    const guard = new ContextGuard({ llm: scriptedLLM(), language: "en" });
    const messages: ChatMessage[] = [{ role: "user", content: "x".repeat(400) }];
    expect(guard.estimate(messages)).toBe(104);
    guard.observe(messages, 208);
    expect(guard.estimate(messages)).toBe(208);
  });

  it("a smaller prompt_eval_count (Ollama's warm prompt cache) never lowers the estimate", () => {
    const guard = new ContextGuard({ llm: scriptedLLM(), language: "en" });
    const messages: ChatMessage[] = [{ role: "user", content: "x".repeat(400) }];
    guard.observe(messages, 12);
    expect(guard.estimate(messages)).toBe(104);
  });
});

describe("ContextGuard.fit", () => {
  it("leaves messages that fit alone, without any LLM call", async () => {
    const llm = scriptedLLM({ contextLength: 16384 });
    const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
    expect(await new ContextGuard({ llm, language: "en" }).fit(messages, new Set(), { hint: "general" })).toBe(
      messages,
    );
    expect(llm.chatCalls).toHaveLength(0);
  });

  it("summarises the older part: system, pinned, one summary, recent — never splitting tool calls from results", async () => {
    const llm = scriptedLLM({ contextLength: 4096, chat: [{ content: "Findings: six pages read." }] });
    const events: CompactionEvent[] = [];
    const guard = new ContextGuard({ llm, language: "en", onCompact: (e) => events.push(e) });
    const { messages, question } = conversation();
    const fitted = await guard.fit(messages, new Set([question]), { hint: "react_iteration" });
    expect(fitted[0]).toEqual({ role: "system", content: "sys" });
    expect(fitted[1]).toBe(question);
    expect(fitted[2]).toEqual({ role: "user", content: "[Conversation summary]\nFindings: six pages read." });
    expect(fitted[3]?.role).toBe("assistant");
    expectPairsIntact(fitted);
    expect(guard.estimate(fitted)).toBeLessThanOrEqual(guard.budget);
    const prompt = llm.chatCalls[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toContain("Keep the reasoning chain");
    expect(prompt).toContain("result 0");
    expect(events[0]).toMatchObject({
      originalMessages: 14,
      keptMessages: fitted.length,
      summary: "Findings: six pages read.",
    });
    expect(events[0]?.tokensAfter).toBeLessThan(events[0]?.tokensBefore ?? 0);
  });

  it.each(["general", "planner_input", "step_dependency"] as const)("uses the %s hint prompt", async (hint) => {
    const llm = scriptedLLM({ contextLength: 4096, chat: [{ content: "s" }] });
    const { messages, question } = conversation();
    await new ContextGuard({ llm, language: "ja" }).fit(messages, new Set([question]), { hint });
    const expected = { general: "会話の前半を要約", planner_input: "プランナー", step_dependency: "後続の手順" }[hint];
    expect(llm.chatCalls[0]?.messages.at(-1)?.content).toContain(expected);
  });

  it("a compaction call fits its model too: a transcript of wide characters is cut again to fit", async () => {
    const llm = scriptedLLM({ contextLength: 4096, chat: [{ content: "要約" }] });
    const guard = new ContextGuard({ llm, language: "ja" });
    // One dependency result of 6,000 Japanese characters: within its share in characters, ~4,000 tokens.
    const summary = await guard.summarise([{ role: "assistant", content: "調査結果".repeat(1500) }], "step_dependency");
    expect(llm.overContext).toEqual([]);
    expect(summary).toBe("要約");
    expect(llm.chatCalls[0]?.messages.at(-1)?.content).toContain(prompt("ja", "truncated"));
  });

  it("falls back to dropping the oldest unpinned messages when compaction fails or is empty", async () => {
    for (const reply of [new Error("compaction model crashed"), { content: "  " }]) {
      const llm = scriptedLLM({ contextLength: 4096, chat: [reply] });
      const events: CompactionEvent[] = [];
      const { messages, question } = conversation();
      const guard = new ContextGuard({ llm, language: "en", onCompact: (e) => events.push(e) });
      const fitted = await guard.fit(messages, new Set([question]), { hint: "react_iteration" });
      expect(fitted.slice(0, 2)).toEqual([{ role: "system", content: "sys" }, question]);
      expect(fitted.some((m) => m.content.startsWith("[Conversation summary]"))).toBe(false);
      expectPairsIntact(fitted);
      expect(guard.estimate(fitted)).toBeLessThanOrEqual(guard.budget);
      expect(events[0]?.summary).toBeNull();
    }
  });

  it("keeps the question and the newest interrupt when pinned messages alone pass half the budget", async () => {
    const llm = scriptedLLM({ contextLength: 4096, chat: [{ content: "s" }] });
    const question: ChatMessage = { role: "user", content: big("question", 2200) };
    const interrupts: ChatMessage[] = [1, 2, 3].map((i) => ({
      role: "user",
      content: big(`[USER INTERRUPT]: ${i}`, 2200),
    }));
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      question,
      ...interrupts,
      { role: "assistant", content: big("a", 6000) },
    ];
    const fitted = await new ContextGuard({ llm, language: "en" }).fit(messages, new Set([question, ...interrupts]), {
      hint: "general",
    });
    const kept = fitted.filter((m) => m.content.includes("question") || m.content.includes("INTERRUPT"));
    expect(kept.map((m) => m.content.slice(0, 20))).toEqual([
      question.content.slice(0, 20),
      interrupts[2]?.content.slice(0, 20),
    ]);
  });

  it("cuts an over-long single message with [Truncated], keeping its head and its tail", async () => {
    const llm = scriptedLLM({ contextLength: 4096, chat: [{ content: "s" }] });
    const huge: ChatMessage = {
      role: "tool",
      content: `HEAD ${"y".repeat(40_000)} next_token: TAILTOKEN`,
      toolCallId: "c",
      toolName: "scrape_url",
    };
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "q" },
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "scrape_url", arguments: {} }] },
      huge,
    ];
    const fitted = await new ContextGuard({ llm, language: "en" }).fit(
      messages,
      new Set([messages[1] as ChatMessage]),
      {
        hint: "react_iteration",
      },
    );
    const cut = fitted.find((m) => m.role === "tool");
    expect(cut?.content.startsWith("HEAD ")).toBe(true);
    expect(cut?.content).toContain("\n[Truncated]\n");
    expect(cut?.content.endsWith("next_token: TAILTOKEN")).toBe(true);
  });
});

describe("the engine checks the budget before every LLM call", () => {
  it("compacts a long tool-heavy run on a small-context model: the question and interrupts survive, pairs stay intact", async () => {
    const queue = interruptQueue();
    const calls = Array.from({ length: 6 }, (_, i) => ({
      toolCalls: [
        { id: `a${i}`, name: "scrape_url", arguments: { url: `u${i}` } },
        { id: `b${i}`, name: "scrape_url", arguments: { url: `v${i}` } },
      ],
    }));
    const llm = scriptedLLM({ contextLength: 4096 });
    // Tool-loop replies and compaction replies interleave; answer compaction requests by their prompt.
    let step = 0;
    const reply = (messages: ChatMessage[]) => {
      if (messages[0]?.content.startsWith("You compress")) return { content: "summary of earlier pages" };
      if (step === 2) queue.push("focus on Europe");
      return step < calls.length ? (calls[step++] ?? { content: "final answer" }) : { content: "final answer" };
    };
    llm.queueChat(...Array.from({ length: 30 }, () => reply));
    const events: CompactionEvent[] = [];
    const tools = fakeToolbox({ scrape_url: (args) => big(`page ${String(args.url)}`, 2500) });
    const { run } = harness(llm, tools, { interrupts: queue, onCompact: (e) => events.push(e) });
    const result = await run({ question: "Summarise the pages" });
    expect(result.answer).toBe("final answer");
    expect(events.length).toBeGreaterThan(0);
    const loopCalls = llm.chatCalls.filter((c) => !c.messages[0]?.content.startsWith("You compress"));
    for (const call of loopCalls) {
      expect(call.messages.some((m) => m.role === "user" && m.content === "Summarise the pages")).toBe(true);
      expectPairsIntact(call.messages);
      expect(estimateTokens(call.messages)).toBeLessThanOrEqual(4096);
    }
    const last = loopCalls.at(-1)?.messages ?? [];
    expect(last.some((m) => m.content.includes("[USER INTERRUPT]: focus on Europe"))).toBe(true);
    expect(last.some((m) => m.content.startsWith("[Conversation summary]"))).toBe(true);
  });
});

describe("pins follow the message, not its object identity", () => {
  it("a cut pinned message stays pinned: a 1,600-character question on a 2K-context model reaches every later loop call through repeated compaction", async () => {
    const question = `QUESTION-HEAD ${"q".repeat(1600)} QUESTION-TAIL`;
    const llm = scriptedLLM({ contextLength: 2048 });
    let step = 0;
    llm.queueChat(
      ...Array.from({ length: 40 }, () => (messages: ChatMessage[]) => {
        if (messages[0]?.content.startsWith("You compress")) return { content: "summary" };
        step++;
        return step <= 5
          ? { toolCalls: [{ id: `c${step}`, name: "scrape_url", arguments: { url: `u${step}` } }] }
          : { content: "final answer" };
      }),
    );
    const events: CompactionEvent[] = [];
    const tools = fakeToolbox({ scrape_url: (args) => big(`page ${String(args.url)}`, 1200) });
    const { run, steps } = harness(llm, tools, { onCompact: (e) => events.push(e) });
    const result = await run({ question });
    expect(result.answer).toBe("final answer");
    expect(events.length).toBeGreaterThanOrEqual(3);
    const loopCalls = llm.chatCalls.filter((c) => !c.messages[0]?.content.startsWith("You compress"));
    expect(loopCalls.length).toBeGreaterThanOrEqual(6);
    for (const [index, call] of loopCalls.entries()) {
      const asked = call.messages.find((m) => m.role === "user" && m.content.startsWith("QUESTION-HEAD"));
      expect(asked, `loop call ${index + 1}`).toBeDefined();
      expect(asked?.content.endsWith("QUESTION-TAIL")).toBe(true);
    }
    expect(steps).toContainEqual(
      expect.objectContaining({
        type: "notice",
        about: expect.objectContaining({ code: "cut", what: "question", total: question.length }),
        text: expect.stringMatching(/^The question was too long/),
      }),
    );
  });
});

describe("never silently: a cut to fit is a notice", () => {
  it("a tool result or a follow-up cut to fit the context gets a notice naming what was cut and how much was kept", async () => {
    const queue = interruptQueue();
    const llm = scriptedLLM({ contextLength: 4096 });
    let step = 0;
    llm.queueChat(
      ...Array.from({ length: 10 }, () => (messages: ChatMessage[]) => {
        if (messages[0]?.content.startsWith("You compress")) return { content: "summary" };
        step++;
        if (step === 1) {
          return { toolCalls: [{ id: "c1", name: "scrape_url", arguments: { url: "u" } }] };
        }
        return { content: "final answer" };
      }),
    );
    const tools = fakeToolbox({
      scrape_url: () => {
        queue.push(`FOLLOW-UP ${"f".repeat(5000)}`);
        return `HEAD ${"y".repeat(20_000)} TAIL`;
      },
    });
    const { run, steps } = harness(llm, tools, { interrupts: queue });
    await run();
    const notices = steps.flatMap((s) => (s.type === "notice" && s.about?.code === "cut" ? [s.text] : []));
    expect(notices).toEqual([
      expect.stringMatching(
        /^A follow-up was too long for the model's context and was cut: [\d,]+ of its [\d,]+ characters were kept\.$/,
      ),
      expect.stringMatching(
        /^A result of scrape_url was too long for the model's context and was cut: [\d,]+ of its 20,010 characters were kept\.$/,
      ),
    ]);
    const last = llm.chatCalls.at(-1)?.messages ?? [];
    expect(last.some((m) => m.content.includes("[USER INTERRUPT]: FOLLOW-UP"))).toBe(true);
  });
});
