import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ResearchAgent } from "@/lib/agent/research/research-agent";
import { checkCitations } from "@/lib/citations/check";
import { modelVerifier } from "@/lib/citations/verifier";
import { closeDb, openDb } from "@/lib/db/client";
import { createConversation } from "@/lib/db/conversations";
import { insertMessage } from "@/lib/db/messages";
import { runSourcesWhole, storeRunEvent } from "@/lib/db/run-sources";
import { createRun } from "@/lib/db/runs";
import { parseConfig } from "@/lib/env-config";
import type { ChatMessage } from "@/lib/llm/types";
import type { ResearchBrief, ResearchPhase } from "@/lib/protocol/research";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { LIMITS } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { startFakeWeb } from "@/tests/support/fake-web";
import { type ScriptedLLM, scriptedLLM } from "@/tests/support/scripted-llm";
import { toolServices } from "@/tests/support/tool-services";
import { sized } from "./smoke-mode.mts";
import { clock, fmt, percentile } from "./support.mts";

const SECTIONS = ["Costs", "Savings", "Installation", "Noise", "Subsidies"];
const PAGES_PER_SECTION = sized(3, 1);
const PARAGRAPHS_PER_PAGE = sized(60, 5);
const RUNS = sized(5, 1);
const PHASES: ResearchPhase[] = ["brief", "gathering", "writing", "verifying"];

/** Page `k` of a section: paragraphs of distinct facts (numbers, names) the report's claims cite. */
function page(title: string, k: number): string {
  const paragraphs = Array.from(
    { length: PARAGRAPHS_PER_PAGE },
    (_, i) =>
      `<p>In ${2010 + (i % 14)}, the ${title.toLowerCase()} survey ${k} of Region ${i} measured ${100 + i * 7 + k} units for heat pumps, ` +
      `compared with ${50 + i} units for gas boilers; Agency ${String.fromCharCode(65 + (i % 26))} reported the figures.</p>`,
  ).join("\n");
  return `<!DOCTYPE html><html><head><title>${title} survey ${k}</title><meta charset="utf-8"></head>
<body><nav>${'<a href="/">Home</a> '.repeat(20)}</nav><main><article><h1>${title} survey ${k}</h1>${paragraphs}</article></main>
<footer>${"footer ".repeat(50)}</footer></body></html>`;
}

const BRIEF: ResearchBrief = {
  goal: "Heat pumps in European homes",
  scope: "Homes, 2010 on",
  sections: SECTIONS.map((title, index) => ({ id: `s${index + 1}`, title, questions: [`What about ${title}?`] })),
};

/** The section a gathering call is about, read from its question. */
const sectionOf = (messages: ChatMessage[]) =>
  /Section: (.*)/.exec(messages.find((message) => message.role === "user")?.content ?? "")?.[1] ?? "";

type Config = ReturnType<typeof parseConfig>;

async function oneRun(webUrl: string, config: Config) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-bench-research-"));
  const db = await openDb(path.join(dir, "bench.sqlite"), { busyTimeoutMs: 5000 });
  const conversation = await createConversation(db, { title: "bench", model: "chat-model", ownerId: null });
  await insertMessage(db, { conversationId: conversation.id, role: "user", content: "Heat pumps?" });
  const run = await createRun(db, { conversationId: conversation.id, mode: "research", model: "chat-model" });
  const registry = createBuiltinRegistry(toolServices(config, db));
  const context = {
    conversationId: conversation.id,
    signal: new AbortController().signal,
    language: "en" as const,
    urlGuard: new UrlLeakGuard(config),
  };
  const tools = fakeToolbox({
    scrape_url: (args, signal) =>
      registry.execute("scrape_url", args, { ...context, signal }, { maxResultChars: config.MAX_TOOL_RESULT_CHARS }),
  });
  const urls = (title: string) =>
    Array.from({ length: PAGES_PER_SECTION }, (_, k) => `${webUrl}/${title.toLowerCase()}/${k + 1}`);
  const worker = scriptedLLM({
    model: "loop-model",
    chat: Array.from({ length: 400 }, () => (messages: ChatMessage[]) => {
      const title = sectionOf(messages);
      const next = urls(title)[messages.filter((message) => message.role === "tool").length];
      return next
        ? { toolCalls: [{ name: "scrape_url", arguments: { url: next } }] }
        : { content: `Notes on ${title}.` };
    }),
  });
  // Each section claims what its first page says, citing it: the sources are numbered in the order read.
  const writer = scriptedLLM({
    model: "chat-model",
    stream: [
      ...SECTIONS.map((title) => [
        `The ${title.toLowerCase()} survey 1 of Region 3 measured heat pumps in 2013 [1]. `,
        `Agency D reported the figures for gas boilers [2].`,
      ]),
      ["Heat pumps were measured across five surveys [1]."],
    ],
  });
  const reasoning = scriptedLLM({
    model: "reasoning-model",
    chat: [{ toolCalls: [{ name: "make_brief", arguments: { ...BRIEF } }] }],
  });
  const verifierModel = scriptedLLM({
    model: "fast-model",
    chat: Array.from({ length: 400 }, () => ({
      toolCalls: [{ name: "judge_citation", arguments: { verdict: "supported", reason: "The passage says so." } }],
    })),
  });
  const models: ScriptedLLM[] = [worker, writer, reasoning, verifierModel];
  const calls = () => models.reduce((sum, llm) => sum + llm.chatCalls.length + llm.streamCalls.length, 0);

  const marks: { phase: ResearchPhase; at: number; calls: number }[] = [];
  const writes: Promise<void>[] = [];
  let seq = 0;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 5);
  const agent = new ResearchAgent({
    llm: writer,
    resolveLlm: async (hint) => (hint === "reasoning" ? reasoning : worker),
    tools,
    limits: LIMITS,
    research: { maxConcurrency: 2, stepMaxIterations: 10, maxSources: 30, maxMs: 20 * 60_000 },
    language: "en",
    onStep: (step) => {
      writes.push(
        storeRunEvent(db, {
          runId: run.id,
          seq: ++seq,
          event: { event: "step", data: { ...step, seq, at: Date.now() } },
        }),
      );
    },
    onAnswer: () => {},
    onProgress: (progress) => {
      if (marks.at(-1)?.phase !== progress.phase) marks.push({ phase: progress.phase, at: clock(), calls: calls() });
    },
    verify: async (report, signal, claimsEnd) => {
      await Promise.all(writes);
      const sources = await runSourcesWhole(db, { runId: run.id });
      // The references at the report's end are not claims, as on the server.
      const answer = report.slice(0, claimsEnd);
      const checked = await checkCitations({ answer, sources, verifier: modelVerifier(verifierModel), signal });
      if (checked.checks.length === 0) throw new Error("the report's citations were not checked");
    },
  });
  const started = clock();
  marks.push({ phase: "brief", at: started, calls: 0 });
  await agent.run({ system: "s", history: [], question: "Heat pumps?" }, new AbortController().signal, {
    propose: { ask: false, thenResearch: true },
  });
  await Promise.all(writes);
  const ended = clock();
  clearInterval(sampler);
  const sources = await runSourcesWhole(db, { runId: run.id });
  if (sources.length !== SECTIONS.length * PAGES_PER_SECTION) {
    throw new Error(`expected ${SECTIONS.length * PAGES_PER_SECTION} sources stored, got ${sources.length}`);
  }
  const perPhase = new Map<ResearchPhase, { ms: number; calls: number }>();
  for (const [index, mark] of marks.entries()) {
    const next = marks[index + 1] ?? { at: ended, calls: calls() };
    const before = perPhase.get(mark.phase) ?? { ms: 0, calls: 0 };
    perPhase.set(mark.phase, { ms: before.ms + next.at - mark.at, calls: before.calls + next.calls - mark.calls });
  }
  await closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    perPhase,
    total: ended - started,
    peakRss,
    sources: sources.length,
    chars: sources.reduce((s, x) => s + x.chars, 0),
  };
}

async function main() {
  const web = await startFakeWeb();
  for (const title of SECTIONS) {
    for (let k = 1; k <= PAGES_PER_SECTION; k++)
      web.routes.set(`/${title.toLowerCase()}/${k}`, { body: page(title, k) });
  }
  const config = parseConfig({ FETCH_ALLOW_PRIVATE: web.hostPort });
  try {
    const rows = [];
    // The first run warms up (module loading, JIT) and is not measured.
    for (let i = 0; i <= RUNS; i++) {
      const row = await oneRun(web.url, config);
      if (i > 0 || RUNS === 1) rows.push(row);
    }
    const last = rows.at(-1);
    console.log(
      `Research mode: ${SECTIONS.length} sections, ${last?.sources} sources read through scrape_url from the fake web ` +
        `(${last?.chars.toLocaleString("en")} characters stored), instant scripted models; median of ${rows.length} runs`,
    );
    console.log("  phase       app time   model calls");
    for (const phase of PHASES) {
      const ms = percentile(
        rows.map((row) => row.perPhase.get(phase)?.ms ?? 0),
        50,
      );
      const modelCalls = rows[0]?.perPhase.get(phase)?.calls ?? 0;
      console.log(`  ${phase.padEnd(10)} ${fmt(ms).padStart(8)} ms   ${String(modelCalls).padStart(5)}`);
    }
    console.log(
      `  whole run  ${fmt(
        percentile(
          rows.map((row) => row.total),
          50,
        ),
      ).padStart(8)} ms`,
    );
    console.log(`  peak RSS ${fmt(Math.max(...rows.map((row) => row.peakRss)) / 1024 / 1024)} MB`);
  } finally {
    await web.close();
  }
}

await main();
