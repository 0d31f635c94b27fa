// npm run bench:load — many concurrent conversations against a fake model that streams at a
// realistic pace, half the clients dropping and re-attaching mid-answer; then the same
// number of answers streaming while the agent reads three PDF bombs in one tool round (docs/benchmarks.md).
// Prints the limits it runs with, the latency the app adds, the longest stall of any stream, the
// error count (must be 0) and the server's memory. Exits non-zero only on real errors.
// BENCH_STORE=postgres runs the app on a throwaway PostgreSQL, BENCH_INSTANCES=2 two instances of it
// behind nginx (the clients' reconnects then land on either instance); see startBenchTarget.
// BENCH_APPROVALS=N adds the approval case (docs/security.md, "Tools that act need the user's
// consent"): one more long wave without, then one with N runs waiting on an approval card — each one's
// model called the fake MCP server's `write_note` (tests/support/mcp-test-server.mjs, over HTTP on
// loopback) and its client left; nobody decides. Both waves print the added latency, the longest
// stall and the errors; afterwards the N runs must still be waiting (active, the tool not called),
// and are then denied and must end. A shorter run on a busy machine:
//   LOAD_CONVERSATIONS=20 BENCH_APPROVALS=20 LOAD_SETTLE_MS=5000 npm run bench:load
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { startFakeWeb } from "@/tests/support/fake-web";
import { startHttpTestServer } from "@/tests/support/mcp-test-server.mjs";
import { makeEndlessPdf, makeFlateBombPdf, makeHugeStringPdf } from "@/tests/support/pdf-bombs";
import { SMOKE, sized, sizeFromEnv } from "./smoke-mode.mts";
import {
  type BenchServer,
  clock,
  createConversation,
  fmt,
  type LoopDelay,
  percentile,
  readSseUntil,
  startBenchTarget,
  watchConditions,
} from "./support.mts";

const CONVERSATIONS = sizeFromEnv("LOAD_CONVERSATIONS", 40, 2);
/** Runs left waiting on an approval card during the approval case's second wave (0: no approval case). */
const APPROVALS = sizeFromEnv("BENCH_APPROVALS", 0, 1);
if (!Number.isInteger(APPROVALS) || APPROVALS < 0) throw new Error("BENCH_APPROVALS is a whole number ≥ 0");
/**
 * A smoke run's answers are long enough that a dropping client (which leaves after 10 tokens and
 * re-attaches 300 ms later) finds its run still streaming, as in a measurement.
 */
const TOKENS = sized(60, 40);
const TOKEN_MS = 30; // ≈ 33 tokens/s, a small local model on a GPU
/** Answers during the bombs last longer than the bombs' tool round (bounded by PDF_TIME_BUDGET_S). */
const BOMB_WAVE_TOKENS = sized(600, 15);
/**
 * From this long after a wave's start, every one of its 40 conversations has started (on a loaded
 * machine too): stalls from then on are the streams', not the starts'.
 */
const STEADY_AFTER_MS = 3000;
const chunksFor = (i: number, tokens = TOKENS) => Array.from({ length: tokens }, (_, t) => `c${i}t${t} `);
/**
 * Conversations 40 000–79 999 are the long answers of the stall comparisons: without, then with
 * bombs; without, then with runs waiting on an approval.
 */
const CALM_FROM = 40_000;
const STORMY_FROM = 50_000;
const QUIET_FROM = 60_000;
const WAITING_FROM = 70_000;
const answerTokens = (i: number) => (i >= CALM_FROM && i < WAITING_FROM + 10_000 ? BOMB_WAVE_TOKENS : TOKENS);
/** The fake MCP server's one tool that acts, as the app names it (server `notes`). */
const WRITE_NOTE = "notes__write_note";
const APPROVAL_QUESTION = (j: number) => `approval-${j}-question`;

// One user runs every conversation here, so the run caps are lifted to what the benchmark needs.
const LIMITS = {
  MAX_RUNS_PER_USER: String(CONVERSATIONS + APPROVALS + 5),
  MAX_RUNS_TOTAL: String(CONVERSATIONS + APPROVALS + 5),
  // The fake MCP server's tools and the built-in ones are all offered, with no selection step.
  ...(APPROVALS > 0 ? { TOOL_SELECTION_THRESHOLD: "100" } : {}),
  // A smoke run does not wait the default 10 s for the endless PDF to be stopped.
  ...(SMOKE ? { PDF_TIME_BUDGET_S: "2" } : {}),
};

/** The PDF bombs of tests/support/pdf-bombs.ts, each stopped by another limit (32 MB buffers, 256 MB heap, 10 s). */
const BOMBS = {
  "/flate-2gib.pdf": () => makeFlateBombPdf(2048),
  "/string-30mb.pdf": () => makeHugeStringPdf(30),
  "/endless.pdf": () => makeEndlessPdf(),
};
const BOMB_QUESTION = "bomb-question";

interface Outcome {
  index: number;
  firstDeltaAt: number;
  /** Longest time between two answer deltas this client read. */
  longestGapMs: number;
  /** The same, counting only gaps that began once every conversation of the wave had started (`steadyFrom`). */
  steadyGapMs: number;
  reconnected: boolean;
  error?: string;
}

async function oneConversation(
  base: string,
  i: number,
  { drop = i % 2 === 0, steadyFrom = Number.POSITIVE_INFINITY } = {},
): Promise<Outcome> {
  const conversationId = await createConversation(base);
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ conversationId, message: `load-${i}-question` }),
  });
  if (response.status !== 200) {
    return {
      index: i,
      firstDeltaAt: Number.NaN,
      longestGapMs: 0,
      steadyGapMs: 0,
      reconnected: false,
      error: `HTTP ${response.status}`,
    };
  }
  let runId = "";
  let lastId = "0";
  let text = "";
  let firstDeltaAt = 0;
  let lastDeltaAt = 0;
  let longestGapMs = 0;
  let steadyGapMs = 0;
  let done = false;
  let errorEvent: string | undefined;
  let dropping = drop;
  const onMessage = (message: { event: string; data: string; id: string | null }) => {
    if (message.id) lastId = message.id;
    const data = JSON.parse(message.data) as Record<string, unknown>;
    if (message.event === "run") runId = String(data.runId);
    if (message.event === "answer" && data.status === "delta") {
      const now = clock();
      firstDeltaAt ||= now;
      if (lastDeltaAt && !drop) longestGapMs = Math.max(longestGapMs, now - lastDeltaAt);
      if (lastDeltaAt >= steadyFrom && !drop) steadyGapMs = Math.max(steadyGapMs, now - lastDeltaAt);
      lastDeltaAt = now;
      text += String(data.content);
    }
    if (message.event === "error") errorEvent = String(data.message);
    if (message.event === "done") done = true;
    return done || (dropping && text.split(" ").length > 10 && lastId.includes("."));
  };
  await readSseUntil(response, onMessage);
  if (!done && dropping) {
    dropping = false;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await fetch(`${base}/api/runs/${runId}/events?after=${lastId}`);
    await readSseUntil(again, onMessage);
  }
  const expected = chunksFor(i, answerTokens(i)).join("");
  const error =
    errorEvent ??
    (!done
      ? `no done event${drop ? " after re-attaching" : ""}`
      : text !== expected
        ? "answer text has a gap or a duplicate"
        : undefined);
  return { index: i, firstDeltaAt, longestGapMs, steadyGapMs, reconnected: drop, error };
}

/** The agent's conversation that reads the bombs: its tool observations, or why it failed. */
async function bombConversation(base: string): Promise<{ observations: string[]; error?: string }> {
  const conversationId = await createConversation(base);
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ conversationId, message: BOMB_QUESTION }),
  });
  if (response.status !== 200) return { observations: [], error: `HTTP ${response.status}` };
  const observations: string[] = [];
  let done = false;
  await readSseUntil(response, (message) => {
    const data = JSON.parse(message.data) as Record<string, unknown>;
    if (message.event === "step" && data.type === "tool_result") observations.push(String(data.observation));
    done ||= message.event === "done";
    return done;
  });
  return { observations, error: done ? undefined : "no done event" };
}

interface WaitingRun {
  conversationId: string;
  runId: string;
  approvalId: string;
  error?: string;
}

/** Starts a run whose model calls `write_note`, reads until its approval card, and leaves: the run waits. */
async function waitingRun(base: string, j: number): Promise<WaitingRun> {
  const conversationId = await createConversation(base);
  const leave = new AbortController();
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ conversationId, message: APPROVAL_QUESTION(j) }),
    signal: leave.signal,
  });
  if (response.status !== 200) return { conversationId, runId: "", approvalId: "", error: `HTTP ${response.status}` };
  let runId = "";
  let approvalId = "";
  let ended = "";
  await readSseUntil(response, (message) => {
    const data = JSON.parse(message.data) as Record<string, unknown>;
    if (message.event === "run") runId = String(data.runId);
    if (message.event === "step" && data.type === "approval_request") approvalId = String(data.approvalId);
    if (message.event === "error" || message.event === "done") ended = `${message.event} before the approval card`;
    return Boolean(approvalId || ended);
  });
  leave.abort();
  return { conversationId, runId, approvalId, error: ended || (approvalId ? undefined : "no approval card") };
}

/**
 * The tool message the fake model read in each approval conversation (by its number), once one did:
 * a decision, or a timeout's denial, reached the model.
 */
function decidedCalls(fake: Awaited<ReturnType<typeof startFakeOllama>>): Map<number, string> {
  const decided = new Map<number, string>();
  for (const request of fake.chatRequests()) {
    const messages = (request.body?.messages ?? []) as { role: string; content: string }[];
    const question = messages.find((m) => m.role === "user" && /approval-\d+-question/.test(String(m.content)));
    const tool = messages.find((m) => m.role === "tool");
    const j = /approval-(\d+)-question/.exec(String(question?.content))?.[1];
    if (j !== undefined && tool) decided.set(Number(j), String(tool.content));
  }
  return decided;
}

/** Samples a value every `everyMs` until stopped; returns the samples. */
function sampler<T>(everyMs: number, sample: () => Promise<T> | T): { stop(): Promise<T[]> } {
  const samples: T[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      samples.push(await sample());
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

async function main() {
  const fake = await startFakeOllama();
  const web = await startFakeWeb(
    Object.fromEntries(
      Object.entries(BOMBS).map(([path, make]) => [
        path,
        { headers: { "content-type": "application/pdf" }, body: Buffer.from(make()) },
      ]),
    ),
  );
  const bombUrls = Object.keys(BOMBS).map((path) => `${web.url}${path}`);
  fake.setDefaultResponder((req) => {
    const lastUser = [...(req.messages ?? [])].reverse().find((m) => m.role === "user")?.content ?? "";
    if (lastUser.includes(BOMB_QUESTION)) {
      // The tool loop's calls carry the tools (and stream): one tool round reading the three bombs
      // at once, then a reply without a call. Synthesis and the title come without tools.
      if (!req.tools?.length) return { content: "The PDFs could not be read." };
      if (req.messages?.at(-1)?.role === "tool") return { content: "ready" };
      return { toolCalls: bombUrls.map((url) => ({ name: "pdf_to_text", arguments: { url_or_path: url } })) };
    }
    if (/approval-\d+-question/.test(lastUser)) {
      // One call of the tool that acts; after the (denied) call, a reply. Synthesis and the title come without tools.
      if (!req.tools?.length) return { content: "The note was not written." };
      if (req.messages?.at(-1)?.role === "tool") return { content: "not written" };
      const j = /approval-(\d+)-question/.exec(lastUser)?.[1];
      return { toolCalls: [{ name: WRITE_NOTE, arguments: { text: `note-${j}` } }] };
    }
    if (req.stream === false) return { content: "ready", delayMs: 50 };
    const index = Number(/load-(\d+)-question/.exec(lastUser)?.[1] ?? 0);
    return { chunks: chunksFor(index, answerTokens(index)), chunkDelayMs: TOKEN_MS };
  });
  const mcp = APPROVALS > 0 ? await startHttpTestServer() : undefined;
  const mcpConfig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-mcp-")), "mcp.json");
  if (mcp) fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { notes: { type: "http", url: mcp.url } } }));
  const env = {
    OLLAMA_BASE_URL: fake.url,
    FETCH_ALLOW_PRIVATE: web.hostPort,
    ...LIMITS,
    ...(mcp ? { MCP_CONFIG: mcpConfig } : {}),
  };
  const server = await startBenchTarget(env);
  console.log(`Server: ${server.described}`);
  console.log(
    `Limits: ${Object.entries(LIMITS)
      .map(([name, value]) => `${name}=${value}`)
      .join(", ")} (one user runs every conversation); other PDF limits at their defaults`,
  );
  try {
    // Warm up the routes, then measure memory before the load.
    await Promise.all(Array.from({ length: sized(4, 1) }, (_, i) => oneConversation(server.base, 1000 + i)));
    const rssBefore = server.rssMb();
    const wavesConditions = watchConditions();
    const wavesCpuBefore = server.cpuMs();
    const started = clock();
    const outcomes = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, i) => oneConversation(server.base, i)),
    );
    const seconds = (clock() - started) / 1000;
    // Two more waves: memory that keeps climbing wave after wave is a leak; a plateau is the heap's size.
    const rssAfterWaves = [server.rssMb()];
    for (let wave = 1; wave <= 2; wave++) {
      const more = await Promise.all(
        Array.from({ length: CONVERSATIONS }, (_, i) => oneConversation(server.base, wave * 10_000 + i)),
      );
      outcomes.push(...more);
      rssAfterWaves.push(server.rssMb());
    }
    const wavesCpuMs = server.cpuMs() - wavesCpuBefore;
    const wavesUnder = wavesConditions.summary();

    // Streams that never drop, without and then with the bombs being read: their longest gaps compare,
    // and so do the response times of GET /api/health asked every 50 ms meanwhile.
    // A request that fails counts as an error, and as NaN among the response times.
    const healthSampler = () =>
      sampler(50, async () => {
        const sent = clock();
        try {
          const response = await fetch(`${server.base}/api/health`);
          await response.arrayBuffer();
          return response.ok ? clock() - sent : Number.NaN;
        } catch {
          return Number.NaN;
        }
      });
    const stallConditions = watchConditions();
    const calmHealth = healthSampler();
    const calmCpuBefore = server.cpuMs();
    const calmMainCpuBefore = server.mainThreadCpuMs();
    await server.loopDelay();
    const calm = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, i) =>
        oneConversation(server.base, CALM_FROM + i, { drop: false, steadyFrom: clock() + STEADY_AFTER_MS }),
      ),
    );
    const calmCpuMs = server.cpuMs() - calmCpuBefore;
    const calmMainCpuMs = server.mainThreadCpuMs() - calmMainCpuBefore;
    const calmLoop = await server.loopDelay();
    const calmHealthMs = await calmHealth.stop();
    const rssBeforeBombs = server.rssMb();
    const rss = sampler(100, () => server.rssMb());
    const workersRss = sampler(100, () => server.childrenRssMb());
    const health = healthSampler();
    const bomb = bombConversation(server.base);
    await waitForRequests(web, bombUrls.length);
    const bombStarted = clock();
    const stormyMainCpuBefore = server.mainThreadCpuMs();
    await server.loopDelay();
    const stormy = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, i) =>
        oneConversation(server.base, STORMY_FROM + i, { drop: false, steadyFrom: clock() + STEADY_AFTER_MS }),
      ),
    );
    const stormyMainCpuMs = server.mainThreadCpuMs() - stormyMainCpuBefore;
    const stormyLoop = await server.loopDelay();
    const bombResult = await bomb;
    const bombSeconds = (clock() - bombStarted) / 1000;
    const rssDuringBombs = Math.max(...(await rss.stop()));
    const workersRssDuringBombs = Math.max(...(await workersRss.stop()));
    const healthMs = await health.stop();
    const stallUnder = stallConditions.summary();

    // The approval case: a wave of long answers without, then one beside runs waiting on an approval.
    const approvalCase = mcp ? await measureApprovalWait(server, fake, healthSampler) : undefined;

    // Past the 60 s during which finished runs stay resumable, one more wave shows what is retained.
    const settleMs = sizeFromEnv("LOAD_SETTLE_MS", 65_000, 0);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    outcomes.push(
      ...(await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => oneConversation(server.base, 90_000 + i)))),
    );
    rssAfterWaves.push(server.rssMb());
    const activeLeft = await server.activeRuns();
    const all = [
      ...outcomes,
      ...calm,
      ...stormy,
      ...(approvalCase ? [...approvalCase.quiet, ...approvalCase.waiting] : []),
    ];
    const errors = all.filter((o) => o.error);
    // Matched after the load, so the benchmark's own bookkeeping does not slow the server's clients.
    const firstWrites = new Map<number, number>();
    for (const request of fake.chatRequests()) {
      if (request.body?.stream === false || !request.firstWriteAt) continue;
      const text = String(request.body?.messages?.at(-1)?.content ?? "");
      const index = /load-(\d+)-question/.exec(text)?.[1];
      if (index) firstWrites.set(Number(index), request.firstWriteAt);
    }
    const latencies = outcomes
      .map((o) => o.firstDeltaAt - (firstWrites.get(o.index) ?? Number.NaN))
      .filter(Number.isFinite);
    const stall = (wave: Outcome[]) => Math.max(...wave.map((o) => o.longestGapMs)) - TOKEN_MS;
    const waveLatencies = (wave: Outcome[]) =>
      wave.map((o) => o.firstDeltaAt - (firstWrites.get(o.index) ?? Number.NaN)).filter(Number.isFinite);
    const steadyStall = (wave: Outcome[]) => Math.max(...wave.map((o) => o.steadyGapMs)) - TOKEN_MS;
    // Each bomb must come back as an observation saying what stopped it, never as the PDF's text.
    const stopped = /Reading this PDF was stopped|could not be read and was skipped/;
    const healthFailures = [
      ...calmHealthMs,
      ...healthMs,
      ...(approvalCase ? [...approvalCase.quietHealthMs, ...approvalCase.waitingHealthMs] : []),
    ].filter(Number.isNaN).length;
    const bombErrors = [
      ...(healthFailures ? [`${healthFailures} GET /api/health requests failed`] : []),
      ...(bombResult.error ? [`bomb conversation: ${bombResult.error}`] : []),
      ...(bombResult.observations.length === bombUrls.length && bombResult.observations.every((o) => stopped.test(o))
        ? []
        : [`bomb observations: ${JSON.stringify(bombResult.observations.map((o) => o.slice(0, 120)))}`]),
      ...(approvalCase?.errors ?? []),
    ];

    console.log(
      `Load: ${CONVERSATIONS} concurrent conversations, ${TOKENS} tokens each at ${TOKEN_MS} ms/token, ${outcomes.filter((o) => o.reconnected).length} clients dropping and re-attaching mid-answer`,
    );
    console.log(
      `  wall time ${fmt(seconds)} s (one answer alone takes ${fmt((TOKENS * TOKEN_MS) / 1000)} s of model time)`,
    );
    console.log(
      `  server CPU for waves 1–3: ${fmt(wavesCpuMs / 1000)} s, ${fmt(wavesCpuMs / (3 * CONVERSATIONS))} ms per conversation of ${TOKENS} tokens`,
    );
    // A long answer's CPU is mostly its deltas: per delta from the calm wave, and what the short
    // conversations of waves 1–3 spent beyond their deltas is their start (and title).
    const cpuPerDeltaMs = calmCpuMs / (CONVERSATIONS * BOMB_WAVE_TOKENS);
    console.log(
      `  server CPU per streamed delta (the ${BOMB_WAVE_TOKENS}-token wave, its starts included): ${fmt(cpuPerDeltaMs * 1000, 0)} µs; so per conversation beyond its deltas (start, title): ${fmt(wavesCpuMs / (3 * CONVERSATIONS) - TOKENS * cpuPerDeltaMs)} ms`,
    );
    console.log(`  measured under: ${wavesUnder}`);
    console.log(
      `  added latency, model's first token → client: p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms, p99 ${fmt(percentile(latencies, 99))} ms`,
    );
    console.log(
      `PDF bombs: ${CONVERSATIONS} answers of ${BOMB_WAVE_TOKENS} tokens streaming while one agent reads ${bombUrls.length} bombs in one tool round (${Object.keys(BOMBS).join(", ")})`,
    );
    console.log(
      `  from the bombs' download to the agent's answer: ${fmt(bombSeconds)} s; observations: ${bombResult.observations.map((o) => JSON.stringify(o.slice(0, 90))).join("; ")}`,
    );
    console.log(
      `  longest stall of any stream (longest gap between two deltas − ${TOKEN_MS} ms): ${fmt(stall(calm), 0)} ms without bombs, ${fmt(stall(stormy), 0)} ms while the bombs are read (goal ≤ 50 ms)`,
    );
    console.log(
      `  the same from ${STEADY_AFTER_MS / 1000} s into the wave (every conversation started): ${fmt(steadyStall(calm), 0)} ms without bombs, ${fmt(steadyStall(stormy), 0)} ms while the bombs are read; the server's own event loop late by at most ${fmt(calmLoop.steady)} ms / ${fmt(stormyLoop.steady)} ms then`,
    );
    const loop = (delay: LoopDelay) =>
      `p99 ${fmt(delay.p99)} ms, max ${fmt(delay.max)} ms (at ${fmt(delay.worst.at)} s; its longest GC pause ${fmt(delay.gc.longest)} ms, kind ${delay.gc.kind}; GC ${fmt(delay.gc.total / 1000)} s in all)`;
    console.log(
      `  the server's own event loop late by ${loop(calmLoop)} without bombs, ${loop(stormyLoop)} while the bombs are read`,
    );
    console.log(
      `  the server's main thread CPU: ${fmt(calmMainCpuMs / 1000)} s without bombs, ${fmt(stormyMainCpuMs / 1000)} s while the bombs are read`,
    );
    console.log(`  measured under: ${stallUnder}`);
    console.log(
      `  GET /api/health every 50 ms: p50 ${fmt(percentile(calmHealthMs.filter(Number.isFinite), 50))} ms, max ${fmt(maxOf(calmHealthMs))} ms without bombs; p50 ${fmt(percentile(healthMs.filter(Number.isFinite), 50))} ms, max ${fmt(maxOf(healthMs))} ms while they are read`,
    );
    console.log(
      `  server RSS: ${fmt(rssBeforeBombs, 0)} MB before the bombs, at most ${fmt(rssDuringBombs, 0)} MB while they are read; its child processes (PDF workers) at most ${fmt(workersRssDuringBombs, 0)} MB`,
    );
    if (approvalCase) {
      const { quiet, waiting } = approvalCase;
      const latency = (wave: Outcome[]) => {
        const values = waveLatencies(wave);
        return `p50 ${fmt(percentile(values, 50))} ms, p95 ${fmt(percentile(values, 95))} ms`;
      };
      console.log(
        `Approval wait: ${CONVERSATIONS} answers of ${BOMB_WAVE_TOKENS} tokens streaming, without and then beside ${APPROVALS} runs waiting on an approval card of ${WRITE_NOTE} (no client attached, no decision)`,
      );
      console.log(
        `  added latency, model's first token → client: ${latency(quiet)} without; ${latency(waiting)} beside the waiting runs`,
      );
      console.log(
        `  longest stall of any stream: ${fmt(stall(quiet), 0)} ms without, ${fmt(stall(waiting), 0)} ms beside the waiting runs; from ${STEADY_AFTER_MS / 1000} s into the wave ${fmt(steadyStall(quiet), 0)} ms / ${fmt(steadyStall(waiting), 0)} ms; the server's event loop late by at most ${fmt(approvalCase.quietLoop.max)} ms / ${fmt(approvalCase.waitingLoop.max)} ms`,
      );
      console.log(
        `  GET /api/health every 50 ms: p50 ${fmt(percentile(approvalCase.quietHealthMs.filter(Number.isFinite), 50))} ms, max ${fmt(maxOf(approvalCase.quietHealthMs))} ms without; p50 ${fmt(percentile(approvalCase.waitingHealthMs.filter(Number.isFinite), 50))} ms, max ${fmt(maxOf(approvalCase.waitingHealthMs))} ms beside the waiting runs`,
      );
      console.log(
        `  errors: ${quiet.filter((o) => o.error).length} without, ${waiting.filter((o) => o.error).length} beside the waiting runs; after the wave ${approvalCase.stillWaiting} of ${APPROVALS} runs still waiting (active, the tool not called), then denied: ${approvalCase.denied} ended with the denial read by the model`,
      );
      console.log(`  measured under: ${approvalCase.under}`);
    }
    console.log(
      `Errors: ${errors.length + bombErrors.length} (${all.length + 1 + APPROVALS} conversations${errors.length ? `; ${[...new Set(errors.map((e) => e.error))].join("; ")}` : ""}${bombErrors.length ? `; ${bombErrors.join("; ")}` : ""})`,
    );
    console.log(
      `Server RSS: ${fmt(rssBefore, 0)} MB before; after waves 1, 2, 3 and (${fmt(settleMs / 1000, 0)} s later) 4 of ${CONVERSATIONS}: ${rssAfterWaves.map((mb) => fmt(mb, 0)).join(", ")} MB; active runs left: ${activeLeft}`,
    );
    if (errors.length > 0 || bombErrors.length > 0 || activeLeft !== 0) process.exitCode = 1;
  } finally {
    await server.stop();
    await web.close();
    await fake.close();
    await mcp?.close();
    fs.rmSync(path.dirname(mcpConfig), { recursive: true, force: true });
  }
}

const maxOf = (values: number[]) => Math.max(...values.filter(Number.isFinite));

/**
 * Two waves of long answers, the second beside APPROVALS runs each waiting on an approval card; then
 * checks the runs still wait (active, no decision reached the model), denies them and waits for them
 * to end, so none outlives the benchmark.
 */
async function measureApprovalWait(
  server: BenchServer,
  fake: Awaited<ReturnType<typeof startFakeOllama>>,
  healthSampler: () => { stop(): Promise<number[]> },
) {
  const errors: string[] = [];
  const wave = async (from: number) => {
    const health = healthSampler();
    await server.loopDelay();
    const outcomes = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, i) =>
        oneConversation(server.base, from + i, { drop: false, steadyFrom: clock() + STEADY_AFTER_MS }),
      ),
    );
    return { outcomes, loop: await server.loopDelay(), healthMs: await health.stop() };
  };
  const conditions = watchConditions();
  const quiet = await wave(QUIET_FROM);
  const runs = await Promise.all(Array.from({ length: APPROVALS }, (_, j) => waitingRun(server.base, j)));
  for (const run of runs.filter((r) => r.error)) errors.push(`waiting run: ${run.error}`);
  const waiting = await wave(WAITING_FROM);
  const under = conditions.summary();
  // Still waiting: every one of them active, and no decision (nor a timeout's denial) reached the model.
  const activeAfter = await server.activeRuns();
  const decidedEarly = decidedCalls(fake).size;
  const stillWaiting = decidedEarly === 0 ? Math.min(activeAfter, runs.filter((r) => !r.error).length) : 0;
  if (activeAfter !== APPROVALS || decidedEarly > 0) {
    errors.push(`after the wave ${activeAfter} runs active (expected ${APPROVALS}), ${decidedEarly} calls decided`);
  }
  for (const run of runs.filter((r) => r.approvalId)) {
    const response = await fetch(`${server.base}/api/conversations/${run.conversationId}/approvals/${run.approvalId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "deny" }),
    });
    if (!response.ok) errors.push(`deny: HTTP ${response.status}`);
  }
  const deadline = Date.now() + 60_000;
  while ((await server.activeRuns()) > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const denied = [...decidedCalls(fake).values()].filter((content) =>
    content.includes("The user denied this call"),
  ).length;
  if (denied !== APPROVALS) errors.push(`${denied} of ${APPROVALS} denials reached the model`);
  return {
    quiet: quiet.outcomes,
    waiting: waiting.outcomes,
    quietLoop: quiet.loop,
    waitingLoop: waiting.loop,
    quietHealthMs: quiet.healthMs,
    waitingHealthMs: waiting.healthMs,
    stillWaiting,
    denied,
    under,
    errors,
  };
}

/** Waits until the fake web has served `count` requests (the bombs were fetched: parsing begins). */
async function waitForRequests(web: { requests: unknown[] }, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (web.requests.length < count) {
    if (Date.now() > deadline) throw new Error("the agent never fetched the PDF bombs");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

await main();
