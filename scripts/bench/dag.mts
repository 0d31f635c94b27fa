// npm run bench:dag — DAG mode's parallelism and its engine cost (docs/engine.md, "DAG mode"):
// A. through the real Ollama client and a fake Ollama on loopback that serves requests concurrently,
//    a plan of 4 independent steps whose model calls take 1 s each: wall time of the steps (goal ≤ 1.3 s,
//    not 4 s) next to the planner, analyzer and synthesis around them;
// B. engine overhead per step: instant scripted models and tools, many steps, time per step.
import { DagAgent } from "@/lib/agent/dag/dag-agent";
import { createOllamaLLM } from "@/lib/llm/ollama-llm";
import type { StepProgress } from "@/lib/protocol/run-events";
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { LIMITS } from "@/tests/support/agent-harness";
import { DAG_LIMITS, planReply, workerLLM } from "@/tests/support/dag-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { SMOKE, sized } from "./smoke-mode.mts";
import { clock, fmt, percentile } from "./support.mts";

const STEP_MODEL_MS = sized(1000, 50);
/** The first `WARM_RUNS` warm up and are not measured. */
const WARM_RUNS = sized(2, 0);
const tools = fakeToolbox({ web_search: () => "results" });
const INPUT = { system: "s", history: [], question: "Compare four things" };

async function benchParallelSteps() {
  const fake = await startFakeOllama();
  fake.setDefaultResponder((req) => {
    const tool = req.tools?.[0]?.function.name;
    if (tool === "make_plan") {
      const steps = ["a", "b", "c", "d"].map((id) => ({ id, task: `look up ${id}`, dependencies: [] }));
      return { toolCalls: [{ name: "make_plan", arguments: { steps } }] };
    }
    if (tool === "judge_results") {
      return {
        toolCalls: [
          { name: "judge_results", arguments: { achieved: true, confidence: 1, final_answer: null, reasoning: "ok" } },
        ],
      };
    }
    if (req.tools) return { content: "found it", delayMs: STEP_MODEL_MS };
    return { chunks: ["The ", "answer."] };
  });
  const llm = createOllamaLLM({
    baseUrl: fake.url,
    model: "llama3.2:latest",
    abilities: { tool_call: true, json_mode: true, thinking: false, vision: false },
    modelContextLength: 131072,
    numCtx: 16384,
  });
  try {
    const rows: { total: number; steps: number }[] = [];
    for (let run = 0; run < WARM_RUNS + sized(6, 1); run++) {
      const progress: (StepProgress & { t: number })[] = [];
      const agent = new DagAgent({
        llm,
        resolveLlm: async () => llm,
        tools,
        limits: LIMITS,
        dag: DAG_LIMITS,
        language: "en",
        onStepProgress: (event) => progress.push({ ...event, t: clock() }),
      });
      const start = clock();
      const result = await agent.run(INPUT, new AbortController().signal);
      for await (const _ of agent.streamAnswer(result, INPUT, new AbortController().signal));
      const total = clock() - start;
      const times = progress.map((event) => event.t);
      const done = progress.filter((event) => event.status === "done").length;
      if (done !== 4) throw new Error(`expected 4 steps done, got ${done}`);
      if (run >= WARM_RUNS) rows.push({ total, steps: Math.max(...times) - Math.min(...times) });
    }
    const steps = percentile(
      rows.map((row) => row.steps),
      50,
    );
    const worst = Math.max(...rows.map((row) => row.steps));
    const total = percentile(
      rows.map((row) => row.total),
      50,
    );
    console.log(`Parallel steps: 4 independent steps of ${STEP_MODEL_MS} ms model time, fake Ollama on loopback`);
    console.log(
      `  steps, first start to last end: median ${fmt(steps / 1000, 2)} s, worst ${fmt(worst / 1000, 2)} s of ${rows.length} warm runs (goal ≤ 1.3 s)`,
    );
    console.log(`  whole run with planner, analyzer and streamed synthesis: median ${fmt(total / 1000, 2)} s`);
    // A smoke run checks that the benchmark runs, never a timing.
    if (!SMOKE && steps > 1300) process.exitCode = 1;
  } finally {
    await fake.close();
  }
}

async function benchOverhead() {
  const count = sized(10, 2);
  /** The first `warmRuns` warm up and are not measured. */
  const warmRuns = sized(10, 0);
  const runs = warmRuns + sized(30, 1);
  let total = 0;
  for (let run = 0; run < runs; run++) {
    const worker = workerLLM("w", () => ({ content: "done" }));
    const planner = scriptedLLM({
      chat: [
        planReply(Array.from({ length: count }, (_, i) => ({ id: `s${i}`, task: `t${i}` }))),
        { toolCalls: [{ name: "judge_results", arguments: { achieved: true, confidence: 1, reasoning: "" } }] },
      ],
    });
    const agent = new DagAgent({
      llm: worker,
      resolveLlm: async (hint) => (hint === "reasoning" ? planner : worker),
      tools,
      limits: LIMITS,
      dag: { ...DAG_LIMITS, maxSteps: count },
      language: "en",
    });
    const start = performance.now();
    await agent.run(INPUT, new AbortController().signal);
    if (run >= warmRuns) total += performance.now() - start;
  }
  console.log(`Engine: ${runs - warmRuns} runs of a ${count}-step plan, instant scripted models`);
  console.log(
    `  ${fmt(((total / (runs - warmRuns)) * 1000) / count, 0)} µs of engine time per step (planner and analyzer included)`,
  );
}

await benchParallelSteps();
await benchOverhead();
