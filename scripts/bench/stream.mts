// CPU per streamed delta and per model call of each model adapter (lib/llm), alone: the direct Ollama
// client against the fake Ollama, and the OpenAI-compatible adapter (the AI SDK) against the fake
// llama-server and vLLM. Each fake runs in a child process, so this process's CPU time is the
// adapter's (plus the bench's loop).
//   npm run bench:stream
import { type ChildProcess, spawn } from "node:child_process";
import { createOllamaLLM } from "@/lib/llm/ollama-llm";
import { createOpenAICompatibleLLM } from "@/lib/llm/openai-compatible/openai-llm";
import type { ChatMessage, LLM, ToolSpec } from "@/lib/llm/types";
import type { ScriptedReply as OllamaReply } from "@/tests/fake-ollama/reply";
import { DEFAULT_MODELS } from "@/tests/fake-openai/models";
import type { ScriptedReply as OpenAIReply } from "@/tests/fake-openai/reply";
import type { Flavor } from "@/tests/fake-openai/server";
import { sized } from "./smoke-mode.mts";
import { fmt, watchConditions } from "./support.mts";

const STREAMS = sized(40, 2);
const TOKENS_PER_STREAM = sized(150, 5);
const TOKEN_INTERVAL_MS = 20;
const BURST_TOKENS = sized(5000, 20);
const CALLS = sized(200, 2);

const question: ChatMessage[] = [
  { role: "system", content: "You are a research assistant." },
  { role: "user", content: "What is new in Node 20?" },
];
const tools: ToolSpec[] = [
  {
    name: "web_search",
    description: "Search the web",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
];
const CALL_QUERY = "what is new in Node 20";
const abilities = { tool_call: true, json_mode: true, thinking: false, vision: false };

/** What both fakes script alike (each sends it in its own server's wire format). */
type ReplyField = "content" | "chunks" | "chunkDelayMs" | "toolCalls";
type Reply = Pick<OllamaReply, ReplyField> & Pick<OpenAIReply, ReplyField>;

interface Fake {
  url: string;
  child: ChildProcess;
}

/** A fake from tests/ in a child process, at the URL it prints ("… listening on <url>"). */
async function startFake(cli: string, env: Record<string, string>): Promise<Fake> {
  const child = spawn(process.execPath, ["--import", "tsx", cli], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      const match = /listening on (\S+)/.exec(String(data));
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(`${cli} exited`)));
  });
  return { url, child };
}

/** Both fakes take scripted replies at the same control endpoint. */
async function script(url: string, replies: Reply[]): Promise<void> {
  const response = await fetch(`${url}/__fake/script`, { method: "POST", body: JSON.stringify({ replies }) });
  if (!response.ok) throw new Error(`scripting the fake failed: ${response.status}`);
}

const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i} `);

/** CPU microseconds this process used while `work` ran. */
async function cpuMicros(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

async function drain(llm: LLM, withTools: boolean): Promise<number> {
  let deltas = 0;
  for await (const part of llm.streamReply(question, withTools ? { tools } : {})) if (part.type === "text") deltas++;
  return deltas;
}

/** A streamed call that must end in the scripted tool call, its arguments whole. */
async function drainCall(llm: LLM): Promise<void> {
  for await (const part of llm.streamReply(question, { tools })) {
    if (part.type === "tool-call" && part.call.arguments.query === CALL_QUERY) return;
  }
  throw new Error(`${llm.model} handed back no whole tool call`);
}

interface Figures {
  /** µs CPU per delta. */
  steady: number;
  steadyDeltas: number;
  burst: number;
  /** ms CPU per call. */
  streamed: number;
  toolCall: number;
  whole: number;
}

async function measure(url: string, llm: LLM): Promise<Figures> {
  await script(url, [{ content: "warm up" }]);
  await drain(llm, true);

  await script(
    url,
    Array.from({ length: STREAMS }, () => ({ chunks: words(TOKENS_PER_STREAM), chunkDelayMs: TOKEN_INTERVAL_MS })),
  );
  let steadyDeltas = 0;
  const steady = await cpuMicros(async () => {
    const counts = await Promise.all(Array.from({ length: STREAMS }, () => drain(llm, true)));
    steadyDeltas = counts.reduce((sum, n) => sum + n, 0);
  });

  await script(url, [{ chunks: words(BURST_TOKENS) }]);
  let burstDeltas = 0;
  const burst = await cpuMicros(async () => {
    burstDeltas = await drain(llm, true);
  });

  const perCall = async (reply: Reply, call: () => Promise<unknown>) => {
    await script(
      url,
      Array.from({ length: CALLS }, () => reply),
    );
    return (
      (await cpuMicros(async () => {
        for (let i = 0; i < CALLS; i++) await call();
      })) / CALLS
    );
  };
  const streamed = await perCall({ content: "Node 20" }, () => drain(llm, true));
  // A tool-loop call that ends in a call: its arguments come in pieces (the fake OpenAI's a few characters each).
  const toolCall = await perCall({ toolCalls: [{ name: "web_search", arguments: { query: CALL_QUERY } }] }, () =>
    drainCall(llm),
  );
  const whole = await perCall({ content: "A short title" }, () => llm.chat(question, { thinking: false }));
  return {
    steady: steady / steadyDeltas,
    steadyDeltas,
    burst: burst / burstDeltas,
    streamed: streamed / 1000,
    toolCall: toolCall / 1000,
    whole: whole / 1000,
  };
}

async function ollama(): Promise<Figures> {
  const fake = await startFake("tests/fake-ollama/cli.ts", { FAKE_OLLAMA_PORT: "0" });
  try {
    const llm = createOllamaLLM({
      baseUrl: fake.url,
      model: "llama3.2",
      abilities,
      modelContextLength: 131072,
      numCtx: 8192,
      timeoutMs: 120_000,
      maxLineBytes: 16 * 1024 * 1024,
    });
    return await measure(fake.url, llm);
  } finally {
    fake.child.kill();
  }
}

async function openAICompatible(flavor: Flavor): Promise<Figures> {
  const fake = await startFake("tests/fake-openai/cli.ts", { FAKE_OPENAI_PORT: "0", FAKE_OPENAI_FLAVOR: flavor });
  const model = DEFAULT_MODELS[flavor][0];
  if (!model) throw new Error(`the fake ${flavor} has no model`);
  try {
    const llm = createOpenAICompatibleLLM({
      server: { label: "bench", baseUrl: `${fake.url}/v1` },
      model: model.id,
      abilities,
      contextLength: model.contextLength,
      timeoutMs: 120_000,
    });
    return await measure(fake.url, llm);
  } finally {
    fake.child.kill();
  }
}

async function main() {
  const under = watchConditions();
  const columns: [string, Figures][] = [
    ["Ollama, direct", await ollama()],
    ["llama-server, AI SDK", await openAICompatible("llama-server")],
    ["vLLM, AI SDK", await openAICompatible("vllm")],
  ];
  const row = (label: string, cell: (figures: Figures) => string) =>
    console.log(`  ${label.padEnd(58)}${columns.map(([, figures]) => cell(figures).padStart(22)).join("")}`);

  console.log(`bench:stream — each model adapter alone, CPU time (${under.summary()})`);
  console.log(`  ${"".padEnd(58)}${columns.map(([name]) => name.padStart(22)).join("")}`);
  row(
    `per delta, ${STREAMS} concurrent streams × ${TOKENS_PER_STREAM} tokens every ${TOKEN_INTERVAL_MS} ms`,
    (f) => `${fmt(f.steady)} µs`,
  );
  row(`per delta, one burst of ${BURST_TOKENS} tokens`, (f) => `${fmt(f.burst)} µs`);
  row("per short streamed call with tools (its answer text)", (f) => `${fmt(f.streamed, 2)} ms`);
  row("per short streamed call with tools ending in a tool call", (f) => `${fmt(f.toolCall, 2)} ms`);
  row("per short non-streamed call (the title)", (f) => `${fmt(f.whole, 2)} ms`);
  row("deltas counted in the concurrent streams", (f) => String(f.steadyDeltas));
}

await main();
