import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import type { ResearchBrief, ResearchBriefEvent, ResearchProgress } from "@/lib/protocol/research";
import type { ScopedStep } from "@/lib/protocol/run-events";
import { toolOk, withSource } from "@/lib/tools/outcome";
import { LIMITS } from "@/tests/support/agent-harness";
import { type FakeTool, fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, type ScriptedStream, scriptedLLM } from "@/tests/support/scripted-llm";
import { briefText } from "./brief-text";
import { ResearchAgent, type ResearchLimits, type ResearchStart } from "./research-agent";

/** docs/research.md, "Research mode": the engine with scripted models, tools and clock. */

const section = (id: string, title: string) => ({ id, title, questions: [`What about ${title}?`] });
const BRIEF: ResearchBrief = {
  goal: "Heat pumps in Europe",
  scope: "Homes, 2020 on",
  sections: [section("s1", "Costs"), section("s2", "Savings"), section("s3", "Limits")],
};

/** The section a gathering call is about, read from its question. */
const sectionOf = (messages: ChatMessage[]) =>
  /Section: (.*)/.exec(messages.find((message) => message.role === "user")?.content ?? "")?.[1] ?? "";

/** A gathering model: each call answered by `handle` from its section's title (sections run concurrently). */
const gatherer = (
  handle: (title: string, messages: ChatMessage[], signal?: AbortSignal) => ScriptedChat | Promise<ScriptedChat>,
) =>
  scriptedLLM({
    model: "loop-model",
    chat: Array.from(
      { length: 200 },
      () => (messages: ChatMessage[], options: { signal?: AbortSignal }) =>
        handle(sectionOf(messages), messages, options.signal),
    ),
  });

/** Reads `url` once (a scrape call), then reports. */
const readsThen = (urls: (title: string) => string[]) =>
  gatherer((title, messages) => {
    const done = messages.filter((message) => message.role === "tool").length;
    const next = urls(title)[done];
    return next ? { toolCalls: [{ name: "scrape_url", arguments: { url: next } }] } : { content: `Notes on ${title}.` };
  });

const page: FakeTool = (args) =>
  withSource(toolOk(`Text of ${String(args.url)}`), { url: String(args.url), title: `Page ${String(args.url)}` });

function harness({
  worker = readsThen((title) => [`https://example.com/${title}`]),
  writer = scriptedLLM({ model: "chat-model" }),
  reasoning = scriptedLLM({ model: "reasoning-model" }),
  research = {},
  tools = fakeToolbox({ scrape_url: page }),
  now,
  verify,
  question = "Tell me about heat pumps",
}: {
  worker?: ReturnType<typeof scriptedLLM>;
  writer?: ReturnType<typeof scriptedLLM>;
  reasoning?: ReturnType<typeof scriptedLLM>;
  research?: Partial<ResearchLimits>;
  tools?: ReturnType<typeof fakeToolbox>;
  now?: () => number;
  verify?: (report: string, claimsEnd: number) => Promise<void>;
  question?: string;
} = {}) {
  const steps: ScopedStep[] = [];
  const progress: ResearchProgress[] = [];
  const briefs: ResearchBriefEvent[] = [];
  const parts: string[] = [];
  let answer = "";
  const controller = new AbortController();
  const agent = new ResearchAgent({
    llm: writer,
    resolveLlm: async (hint) => (hint === "reasoning" ? reasoning : worker),
    tools,
    limits: LIMITS,
    research: { maxConcurrency: 4, stepMaxIterations: 10, maxSources: 30, maxMs: 20 * 60_000, ...research },
    language: "en",
    now,
    onStep: (step) => steps.push(step),
    onAnswer: (part) => {
      if (part.status === "start") answer = "";
      if (part.status === "delta") {
        answer += part.content;
        parts.push(part.content);
      }
    },
    onBrief: (brief) => briefs.push(brief),
    onProgress: (event) => progress.push(event),
    ...(verify
      ? { verify: (report: string, _signal: AbortSignal, claimsEnd: number) => verify(report, claimsEnd) }
      : {}),
  });
  const input = { system: "You are a test assistant.", history: [], question };
  const run = (start: ResearchStart = { brief: BRIEF }) => agent.run(input, controller.signal, start);
  return { run, steps, progress, briefs, parts, answer: () => answer, controller, tools, writer };
}

const briefReply = (raw: Record<string, unknown>): ScriptedChat => ({
  toolCalls: [{ name: "make_brief", arguments: raw }],
});
const notices = (steps: ScopedStep[]) => steps.flatMap((step) => (step.type === "notice" ? [step.text] : []));
/** The notices' data, which the trail words in the reader's language. */
const noticeData = (steps: ScopedStep[]) => steps.flatMap((step) => (step.type === "notice" ? [step.about] : []));
/** Writer streams: one per written section, then the summary. */
const streams = (...texts: string[]): ScriptedStream[] => texts.map((text) => [text]);

describe("research mode: the brief", () => {
  it("proposes a brief made by the reasoning role and ends with it, stored as the answer", async () => {
    const reasoning = scriptedLLM({
      model: "reasoning-model",
      chat: [briefReply({ goal: BRIEF.goal, scope: BRIEF.scope, sections: BRIEF.sections, clarifying_questions: [] })],
    });
    const h = harness({ reasoning });
    const result = await h.run({ propose: { ask: true, thenResearch: false } });
    expect(h.briefs).toEqual([{ kind: "brief", brief: BRIEF }]);
    expect(h.answer()).toBe(briefText(BRIEF, "en"));
    expect(result.direct).toBe(true);
    expect(h.progress.map((event) => event.phase)).toEqual(["brief"]);
    expect(h.tools.calls).toEqual([]);
  });

  it("asks at most 3 clarifying questions instead of a brief when the request is ambiguous", async () => {
    const questions = ["Which country?", "Which homes?", "Air or ground?", "Which years?"];
    const reasoning = scriptedLLM({
      model: "reasoning-model",
      chat: [briefReply({ goal: "g", sections: [], clarifying_questions: questions })],
    });
    const h = harness({ reasoning });
    await h.run({ propose: { ask: true, thenResearch: false } });
    expect(h.briefs).toEqual([{ kind: "questions", questions: questions.slice(0, 3) }]);
    expect(h.answer()).toContain("1. Which country?\n2. Which homes?\n3. Air or ground?");
    expect(h.answer()).not.toContain("Which years?");
  });

  it("a brief's request cut to fit the reasoning model says so in the trail, with the figures as data", async () => {
    const reasoning = scriptedLLM({
      model: "reasoning-model",
      contextLength: 2048,
      chat: [briefReply({ goal: "g", sections: [], clarifying_questions: ["Which country?"] })],
    });
    const h = harness({ reasoning, question: "Tell me about heat pumps. ".repeat(600) });
    await h.run({ propose: { ask: true, thenResearch: false } });
    expect(reasoning.overContext).toEqual([]);
    const [about] = noticeData(h.steps);
    expect(about).toMatchObject({ code: "cut", what: "request", call: "brief", total: expect.any(Number) });
    expect(about?.code === "cut" && about.kept < about.total).toBe(true);
    expect(notices(h.steps)).toEqual([
      expect.stringMatching(
        /^The brief's request was cut to fit the model's context: [\d,]+ of [\d,]+ characters kept\.$/,
      ),
    ]);
  });

  it("asks nothing and researches its own brief at once when it starts without asking", async () => {
    const reasoning = scriptedLLM({
      model: "reasoning-model",
      chat: [
        briefReply({
          goal: BRIEF.goal,
          scope: BRIEF.scope,
          sections: BRIEF.sections,
          clarifying_questions: ["Which?"],
        }),
      ],
    });
    const writer = scriptedLLM({ model: "chat-model", stream: streams("A [1].", "B [2].", "C [3].", "Sum.") });
    const h = harness({ reasoning, writer });
    await h.run({ propose: { ask: false, thenResearch: true } });
    expect(h.briefs[0]?.kind).toBe("brief");
    expect(reasoning.chatCalls[0]?.messages[0]?.content).toContain(prompt("en", "research_brief_no_asking"));
    expect(h.answer()).toContain("## Costs\n\nA [1].");
  });
});

describe("research mode: gathering", () => {
  it("runs sections in parallel, up to DAG_MAX_CONCURRENCY at once", async () => {
    const started: string[] = [];
    let release: () => void = () => {};
    const opened = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = gatherer(async (title) => {
      if (!started.includes(title)) started.push(title);
      await opened;
      return { content: `nothing on ${title}` };
    });
    const brief = { ...BRIEF, sections: ["A", "B", "C", "D"].map((title, index) => section(`s${index + 1}`, title)) };
    const h = harness({ worker, research: { maxConcurrency: 2 } });
    const running = h.run({ brief });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(["A", "B"]);
    release();
    await running;
    expect(started).toEqual(["A", "B", "C", "D"]);
  });

  it("shares one source numbering across sections: a page two sections read has one number", async () => {
    const worker = readsThen((title) => [`https://example.com/${title}`, "https://example.com/shared"]);
    const writer = scriptedLLM({ model: "chat-model", stream: streams("a", "b", "c", "s") });
    const h = harness({ worker, writer });
    const result = await h.run();
    expect(result.sources.map((source) => source.url).filter((url) => url.endsWith("shared"))).toHaveLength(1);
    expect(result.sources).toHaveLength(4);
  });

  it("holds the sources budget: no new reads once RESEARCH_MAX_SOURCES are read, and a notice says so", async () => {
    const worker = readsThen((title) => [1, 2, 3].map((k) => `https://example.com/${title}/${k}`));
    const writer = scriptedLLM({ model: "chat-model", stream: streams("a [1].", "b", "c", "s") });
    const h = harness({ worker, writer, research: { maxSources: 4 } });
    const result = await h.run();
    expect(result.sources).toHaveLength(4);
    const reads = h.steps.filter((step) => step.type === "tool_result" && step.ok);
    expect(reads).toHaveLength(4);
    expect(notices(h.steps)).toContain(prompt("en", "research_budget_sources", { max: "4", minutes: "20" }));
    expect(noticeData(h.steps)).toContainEqual({ code: "research_budget", budget: "sources", max: 4 });
    expect(h.progress.at(-1)).toMatchObject({ sourcesRead: 4, maxSources: 4, budgetsReached: ["sources"] });
    const refused = h.steps.filter((step) => step.type === "tool_result" && !step.ok);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((step) => step.type === "tool_result" && step.errorKind === "not_run")).toBe(true);
  });

  it("ends gathering when the time budget is up, and writes the report from what was found", async () => {
    let clock = 0;
    // Costs reads one page, then its next call finds the time up; the others start after it.
    const worker = readsThen((title) => [`https://example.com/${title}/1`, `https://example.com/${title}/2`]);
    const tools = fakeToolbox({
      scrape_url: (args, signal) => {
        clock += 11 * 60_000;
        return page(args, signal);
      },
    });
    const writer = scriptedLLM({ model: "chat-model", stream: streams("Costs text [1].", "Sum.") });
    const h = harness({ worker, writer, tools, now: () => clock, research: { maxConcurrency: 1, maxMs: 20 * 60_000 } });
    const result = await h.run();
    expect(tools.calls).toHaveLength(2);
    expect(notices(h.steps)).toContain(prompt("en", "research_budget_time", { max: "30", minutes: "20" }));
    expect(noticeData(h.steps)).toContainEqual({ code: "research_budget", budget: "time", minutes: 20 });
    expect(h.answer()).toContain("## Costs\n\nCosts text [1].");
    const failed = prompt("en", "research_section_failed", { reason: prompt("en", "research_reason_time") });
    expect(h.answer()).toContain(`## Savings\n\n${failed}`);
    expect(h.answer()).toContain(`## Limits\n\n${failed}`);
    expect(h.progress.at(-1)?.budgetsReached).toEqual(["time"]);
    expect(result.sources).toHaveLength(2);
  });
});

describe("research mode: writing", () => {
  it("says in the report that a section's research failed, and writes nothing in its place", async () => {
    const worker = gatherer((title, messages) => {
      if (title === "Savings") return new Error("model crashed");
      const read = messages.some((message) => message.role === "tool");
      return read
        ? { content: "notes" }
        : { toolCalls: [{ name: "scrape_url", arguments: { url: `https://example.com/${title}` } }] };
    });
    const writer = scriptedLLM({ model: "chat-model", stream: streams("Costs [1].", "Limits [2].", "Sum.") });
    const h = harness({ worker, writer });
    await h.run();
    expect(h.answer()).toContain(
      `## Savings\n\n${prompt("en", "research_section_failed", { reason: "model crashed" })}`,
    );
    // Two sections written and the summary: no model call for the failed one.
    expect(writer.streamCalls).toHaveLength(3);
    expect(writer.streamCalls.some((call) => call.messages.some((m) => m.content.includes("Section: Savings")))).toBe(
      false,
    );
    const last = h.progress.at(-1);
    expect(last?.sections.find((state) => state.id === "s2")).toMatchObject({
      status: "failed",
      reason: "model crashed",
    });
    expect(last).toMatchObject({ done: 3, total: 3 });
  });

  it("fails a section that read no source, instead of writing it from the model's memory", async () => {
    const worker = gatherer(() => ({ content: "I know this already." }));
    const writer = scriptedLLM({ model: "chat-model", stream: streams("Sum.") });
    const h = harness({ worker, writer });
    await h.run();
    const failed = prompt("en", "research_section_failed", { reason: prompt("en", "research_reason_no_sources") });
    expect(h.answer()).toContain(`## Costs\n\n${failed}`);
    expect(h.answer()).not.toContain("I know this already.");
  });

  it("streams the report section by section, then puts the summary on top and the references at the end", async () => {
    const writer = scriptedLLM({
      model: "chat-model",
      stream: streams("Costs [1].", "Savings [2].", "Limits [3].", "All in all [1]."),
    });
    const h = harness({ writer });
    await h.run();
    // As it streamed: each section's heading, then its text, in the brief's order.
    expect(h.parts.slice(0, 4)).toEqual(["## Costs\n\n", "Costs [1].", "\n\n", "## Savings\n\n"]);
    const report = h.answer();
    expect(report.indexOf("## Summary")).toBeLessThan(report.indexOf("## Costs"));
    expect(report.indexOf("## Limits")).toBeLessThan(report.indexOf("## References"));
    expect(report.startsWith(`# ${BRIEF.goal}\n\n## Summary\n\nAll in all [1].`)).toBe(true);
  });

  it("lists every cited source in the references, with its title, URL and accessed date", async () => {
    const day = Date.UTC(2026, 11, 2, 8);
    const worker = readsThen((title) => [`https://example.com/${title}`, `https://example.com/${title}/more`]);
    // Sources 1-6; the report cites 1, 3 and 5 (and a 9 the run has no source for).
    const writer = scriptedLLM({ model: "chat-model", stream: streams("A [1].", "B [3, 5].", "C [9].", "Sum.") });
    const h = harness({ worker, writer, now: () => day, research: { maxConcurrency: 1 } });
    const result = await h.run();
    const references = h.answer().slice(h.answer().indexOf("## References"));
    const cited = [1, 3, 5].map((n) => result.sources.find((source) => source.n === n));
    for (const source of cited) {
      expect(references).toContain(`[${source?.n}] ${source?.title}. ${source?.url} (accessed 2026-12-02)`);
    }
    expect(
      references
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("[")),
    ).toHaveLength(3);
  });

  it("keeps what was written when stopped mid-report: the sections before Stop went out", async () => {
    const writer = scriptedLLM({ model: "chat-model" });
    const h = harness({ writer });
    writer.queueStream(["Costs [1]."]);
    // The second section's stream waits; Stop comes while it is written.
    writer.streamChat = async function* (messages, options) {
      writer.streamCalls.push({ messages });
      if (writer.streamCalls.length === 1) {
        yield { type: "text", text: "Costs [1]." };
        yield { type: "finish", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, finishReason: "stop" };
        return;
      }
      yield { type: "text", text: "Savings begin" };
      h.controller.abort();
      options?.signal?.throwIfAborted();
    };
    await expect(h.run()).rejects.toThrow();
    expect(h.answer()).toBe("## Costs\n\nCosts [1].\n\n## Savings\n\nSavings begin");
  });

  it("verifies the report once written, in the verifying phase, its claims ending where the references begin", async () => {
    const checked: string[] = [];
    let claimsEnd = -1;
    const writer = scriptedLLM({ model: "chat-model", stream: streams("a [1].", "b [2].", "c [3].", "s") });
    const h = harness({
      writer,
      verify: async (report, end) => {
        checked.push(report);
        claimsEnd = end;
      },
    });
    await h.run();
    expect(checked).toEqual([h.answer()]);
    expect(h.answer().slice(claimsEnd)).toMatch(/^## References\n\n\[1\] /);
    expect(h.answer().slice(0, claimsEnd)).not.toContain("References");
    expect(h.progress.at(-1)?.phase).toBe("verifying");
    expect(h.progress.map((event) => event.phase)).toContain("writing");
  });
});

describe("research mode: resuming an interrupted run", () => {
  const at = Date.UTC(2026, 10, 30, 9);
  const kept = {
    sections: new Map([["s1", "## Costs\n\nA heat pump costs more to fit [1], less to run [2].\n\n"]]),
    sources: [
      { n: 1, url: "https://example.com/old-a", title: "Old A", retrievedAt: at },
      { n: 2, url: "https://example.com/old-b", title: "Old B", retrievedAt: at },
    ],
  };

  it("keeps the finished sections as written and gathers and writes only the others", async () => {
    const gathered: string[] = [];
    const worker = readsThen((title) => {
      gathered.push(title);
      return [`https://example.com/${title}`];
    });
    const writer = scriptedLLM({ model: "chat-model", stream: streams("Savings [3].", "Limits [4].", "Sum [1].") });
    const h = harness({ worker, writer });
    await h.run({ brief: BRIEF, kept });
    expect(new Set(gathered)).toEqual(new Set(["Savings", "Limits"]));
    const scraped = h.tools.calls.map((call) => (call.args as { url: string }).url);
    expect(scraped).not.toContain("https://example.com/Costs");
    const report = h.answer();
    expect(report).toContain(kept.sections.get("s1"));
    expect(report.indexOf("## Costs")).toBeLessThan(report.indexOf("## Savings"));
    expect(report.indexOf("## Savings")).toBeLessThan(report.indexOf("## Limits"));
    expect(report.startsWith(`# ${BRIEF.goal}\n\n## Summary\n\nSum [1].`)).toBe(true);
  });

  it("goes on numbering after the kept sources, and references them with the date they were read", async () => {
    const writer = scriptedLLM({ model: "chat-model", stream: streams("Savings [3].", "Limits [4].", "Sum.") });
    const h = harness({ writer, now: () => Date.UTC(2026, 11, 2, 8) });
    const result = await h.run({ brief: BRIEF, kept });
    expect(result.sources.map((source) => [source.n, source.url])).toEqual([
      [1, "https://example.com/old-a"],
      [2, "https://example.com/old-b"],
      [3, "https://example.com/Savings"],
      [4, "https://example.com/Limits"],
    ]);
    const references = h.answer().slice(h.answer().indexOf("## References"));
    expect(references).toContain("[1] Old A. https://example.com/old-a (accessed 2026-11-30)");
    expect(references).toContain("[2] Old B. https://example.com/old-b (accessed 2026-11-30)");
    expect(references).toContain(
      "[4] Page https://example.com/Limits. https://example.com/Limits (accessed 2026-12-02)",
    );
  });

  it("shows the kept sections as written from the start of its progress", async () => {
    const h = harness({ writer: scriptedLLM({ model: "chat-model", stream: streams("b [3].", "c [4].", "s") }) });
    await h.run({ brief: BRIEF, kept });
    const first = h.progress[0];
    expect(first?.sections.find((state) => state.id === "s1")).toMatchObject({ status: "written", sources: 2 });
    expect(first?.sourcesRead).toBe(2);
  });
});
