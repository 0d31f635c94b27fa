// npm run bench:engine — the engine's own cost and the SSE path's (docs/benchmarks.md):
// A. time per tool-loop iteration with an instant scripted model and instant tools (in process);
// B. through `next start` and a fake Ollama on loopback, a direct answer (no tool call, the fast path):
//    the latency added between the model's first answer token and the first `answer` byte at the client,
//    answer tokens/s end to end, and how many model calls the turn made (the goal: 1 plus the title).
import { ReActAgent } from "@/lib/agent/react-agent";
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { LIMITS } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { sized } from "./smoke-mode.mts";
import { clock, createConversation, fmt, percentile, readSseUntil, startServer, watchConditions } from "./support.mts";

async function benchEngine() {
  const iterations = sized(49, 2);
  /** The first `warmRuns` warm up and are not measured. */
  const warmRuns = sized(10, 0);
  const runs = warmRuns + sized(50, 1);
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
    if (run >= warmRuns) total += performance.now() - start;
    if (result.iterations !== iterations + 1)
      throw new Error(`expected ${iterations + 1} iterations, got ${result.iterations}`);
  }
  const perIteration = (total / (runs - warmRuns) / (iterations + 1)) * 1000;
  console.log(
    `Engine: ${runs - warmRuns} runs of ${iterations + 1} iterations (one tool call each), instant model and tools`,
  );
  console.log(`  ${fmt(perIteration, 0)} µs of engine time per iteration`);
}

async function benchSsePath() {
  const chunks = sized(1500, 20);
  /** The first `warmRuns` warm up and are not measured. */
  const warmRuns = sized(5, 0);
  const runs = warmRuns + sized(20, 1);
  const fake = await startFakeOllama();
  // The tool loop's call streams and calls no tool: its reply is the answer. The title is not streamed.
  fake.setDefaultResponder((req) =>
    req.stream === false ? { content: "A title" } : { chunks: Array.from({ length: chunks }, (_, i) => `tok${i} `) },
  );
  const server = await startServer({ OLLAMA_BASE_URL: fake.url });
  try {
    const latencies: number[] = [];
    const rates: number[] = [];
    const callCounts: number[] = [];
    let conditions = watchConditions();
    let cpuBefore = server.cpuMs();
    for (let run = 0; run < runs; run++) {
      if (run === warmRuns) {
        // The first runs warm up.
        conditions = watchConditions();
        cpuBefore = server.cpuMs();
      }
      const conversationId = await createConversation(server.base);
      const callsBefore = fake.chatRequests().length;
      const response = await fetch(`${server.base}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ conversationId, message: `benchmark ${run}` }),
      });
      let firstDeltaAt = 0;
      let lastDeltaAt = 0;
      let text = "";
      await readSseUntil(response, (message) => {
        if (message.event === "answer" && message.data.includes('"delta"')) {
          lastDeltaAt = clock();
          firstDeltaAt ||= lastDeltaAt;
          text += (JSON.parse(message.data) as { content: string }).content;
        }
        // The title comes after `done`, on the same stream: read on to it, so its call is counted.
        return message.event === "title";
      });
      const stream = fake
        .chatRequests()
        .filter((r) => r.body?.stream !== false)
        .at(-1);
      if (!stream?.firstWriteAt) throw new Error("no streamed reply recorded");
      callCounts.push(fake.chatRequests().length - callsBefore);
      const tokens = text.split(" ").filter(Boolean).length;
      if (tokens !== chunks) throw new Error(`expected ${chunks} tokens, got ${tokens}`);
      if (run >= warmRuns) {
        latencies.push(firstDeltaAt - stream.firstWriteAt);
        rates.push(tokens / ((lastDeltaAt - firstDeltaAt) / 1000));
      }
    }
    const cpuMs = server.cpuMs() - cpuBefore;
    const under = conditions.summary();
    console.log(
      `SSE path: ${latencies.length} direct answers through next start, a fake Ollama streaming ${chunks} tokens with no delay`,
    );
    console.log(
      `  model's first answer token → first answer byte at the client: p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms`,
    );
    console.log(
      `  model calls for a no-tool turn, title included: ${Math.min(...callCounts)}–${Math.max(...callCounts)} (goal: 1 plus the title)`,
    );
    console.log(
      `  answer throughput: p50 ${fmt(percentile(rates, 50), 0)} tokens/s (min ${fmt(Math.min(...rates), 0)})`,
    );
    console.log(
      `  server CPU: ${fmt(cpuMs / latencies.length, 0)} ms per answer, ${fmt((cpuMs / latencies.length / chunks) * 1000, 0)} µs per token (the title call included)`,
    );
    console.log(`  measured under: ${under}`);
  } finally {
    await server.stop();
    await fake.close();
  }
}

await benchEngine();
await benchSsePath();
