// CPU per streamed delta and per model call of the Ollama adapter (lib/llm), alone: the fake Ollama
// runs in a child process, so this process's CPU time is the adapter's (plus the bench's loop).
//   npm run bench:stream
import { type ChildProcess, spawn } from "node:child_process";
import { createOllamaLLM } from "@/lib/llm/ollama-llm";
import type { ChatMessage, LLM, ToolSpec } from "@/lib/llm/types";
import type { ScriptedReply } from "@/tests/fake-ollama/reply";
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

async function startFake(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/fake-ollama/cli.ts"], {
    env: { ...process.env, FAKE_OLLAMA_PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      const match = /listening on (\S+)/.exec(String(data));
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error("the fake Ollama exited")));
  });
  return { url, child };
}

async function script(url: string, replies: ScriptedReply[]): Promise<void> {
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

async function main() {
  const { url, child } = await startFake();
  try {
    const llm = createOllamaLLM({
      baseUrl: url,
      model: "llama3.2",
      abilities: { tool_call: true, json_mode: true, thinking: false, vision: false },
      modelContextLength: 131072,
      numCtx: 8192,
      timeoutMs: 120_000,
      maxLineBytes: 16 * 1024 * 1024,
    });
    await script(url, [{ content: "warm up" }]);
    await drain(llm, true);
    const under = watchConditions();

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

    await script(
      url,
      Array.from({ length: CALLS }, () => ({ content: "Node 20" })),
    );
    const streamed = await cpuMicros(async () => {
      for (let i = 0; i < CALLS; i++) await drain(llm, true);
    });
    await script(
      url,
      Array.from({ length: CALLS }, () => ({ content: "A short title" })),
    );
    const whole = await cpuMicros(async () => {
      for (let i = 0; i < CALLS; i++) await llm.chat(question, { thinking: false });
    });

    console.log(`bench:stream — the Ollama adapter alone (${under.summary()})`);
    console.log(
      `  ${STREAMS} concurrent streams × ${TOKENS_PER_STREAM} tokens every ${TOKEN_INTERVAL_MS} ms: ${fmt(steady / steadyDeltas)} µs CPU per delta (${steadyDeltas} deltas)`,
    );
    console.log(`  one burst of ${BURST_TOKENS} tokens: ${fmt(burst / burstDeltas)} µs CPU per delta`);
    console.log(`  a short streamed call with tools: ${fmt(streamed / CALLS / 1000, 2)} ms CPU per call`);
    console.log(`  a short non-streamed call (the title): ${fmt(whole / CALLS / 1000, 2)} ms CPU per call`);
  } finally {
    child.kill();
  }
}

await main();
