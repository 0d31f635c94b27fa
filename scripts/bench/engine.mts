// npm run bench:engine — the engine's own cost and the SSE path's (issue 4):
// A. time per tool-loop iteration with an instant scripted model and instant tools (in process);
// B. through `next start` and a fake Ollama on loopback: the latency added between the model's first
//    synthesis token and the first `answer` byte at the client, and answer tokens/s end to end.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ReActAgent } from "@/lib/agent/react-agent";
import { SseParser } from "@/lib/client/sse";
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { LIMITS } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { ensureBuild } from "../ensure-build.mjs";

const clock = () => performance.timeOrigin + performance.now();
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function benchEngine() {
  const iterations = 49;
  const runs = 60;
  const tools = fakeToolbox({ web_search: () => '[{"title":"t","href":"https://e.example/","body":"b"}]' });
  let total = 0;
  for (let run = 0; run < runs; run++) {
    const llm = scriptedLLM({
      chat: [
        ...Array.from({ length: iterations }, (_, i) => ({
          toolCalls: [{ name: "web_search", arguments: { query: `q${i}`, continue_from: `t${i}` } }],
        })),
        { content: "final" },
      ],
    });
    const agent = new ReActAgent({
      llm,
      tools,
      limits: { ...LIMITS, maxToolContextChars: 10_000_000 },
      language: "en",
    });
    const start = performance.now();
    const result = await agent.run({ system: "s", history: [], question: "q" }, new AbortController().signal);
    if (run >= 10) total += performance.now() - start; // the first runs warm up
    if (result.iterations !== iterations + 1)
      throw new Error(`expected ${iterations + 1} iterations, got ${result.iterations}`);
  }
  const perIteration = (total / (runs - 10) / (iterations + 1)) * 1000;
  console.log(
    `Engine: ${runs - 10} runs of ${iterations + 1} iterations (one tool call each), instant model and tools`,
  );
  console.log(`  ${fmt(perIteration, 0)} µs of engine time per iteration`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function waitFor(url: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

async function benchSsePath() {
  ensureBuild();
  const chunks = 1500;
  const fake = await startFakeOllama();
  fake.setDefaultResponder((req) =>
    req.stream === false
      ? { content: "loop answer" }
      : { chunks: Array.from({ length: chunks }, (_, i) => `tok${i} `) },
  );
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-engine-"));
  const server: ChildProcess = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)],
    {
      env: { ...process.env, OLLAMA_BASE_URL: fake.url, DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "ignore",
    },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/api/conversations`);
    const latencies: number[] = [];
    const rates: number[] = [];
    const runs = 25;
    for (let run = 0; run < runs; run++) {
      const created = (await (
        await fetch(`${base}/api/conversations`, {
          method: "POST",
          body: "{}",
          headers: { "content-type": "application/json" },
        })
      ).json()) as {
        conversation: { id: string };
      };
      const response = await fetch(`${base}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ conversationId: created.conversation.id, message: `benchmark ${run}` }),
      });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      let firstDeltaAt = 0;
      let lastDeltaAt = 0;
      let deltaText = "";
      let done = false;
      while (!done) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          if (message.event === "answer" && message.data.includes('"delta"')) {
            const at = clock();
            firstDeltaAt ||= at;
            lastDeltaAt = at;
            deltaText += (JSON.parse(message.data) as { content: string }).content;
          }
          if (message.event === "done") done = true;
        }
      }
      await reader.cancel().catch(() => {});
      const stream = fake
        .chatRequests()
        .filter((r) => r.body?.stream !== false)
        .at(-1);
      if (!stream?.firstWriteAt) throw new Error("no streamed reply recorded");
      const tokens = deltaText.split(" ").filter(Boolean).length;
      if (tokens !== chunks) throw new Error(`expected ${chunks} tokens, got ${tokens}`);
      if (run >= 5) {
        latencies.push(firstDeltaAt - stream.firstWriteAt);
        rates.push(tokens / ((lastDeltaAt - firstDeltaAt) / 1000));
      }
    }
    console.log(
      `SSE path: ${latencies.length} chats through next start, a fake Ollama streaming ${chunks} tokens with no delay`,
    );
    console.log(
      `  model's first token → first answer byte at the client: p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms`,
    );
    console.log(
      `  answer throughput: p50 ${fmt(percentile(rates, 50), 0)} tokens/s (min ${fmt(Math.min(...rates), 0)})`,
    );
  } finally {
    server.kill("SIGTERM");
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await benchEngine();
await benchSsePath();
