// npm run bench:load — many concurrent conversations against a fake model that streams at a
// realistic pace, half the clients dropping and re-attaching mid-answer (issue 5). Prints the
// latency the app adds, the error count (must be 0) and the server's memory before and after.
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { clock, createConversation, fmt, percentile, readSseUntil, startServer } from "./support.mts";

const CONVERSATIONS = Number(process.env.LOAD_CONVERSATIONS ?? 40);
const TOKENS = 60;
const TOKEN_MS = 30; // ≈ 33 tokens/s, a small local model on a GPU
const chunksFor = (i: number) => Array.from({ length: TOKENS }, (_, t) => `c${i}t${t} `);

interface Outcome {
  index: number;
  firstDeltaAt: number;
  reconnected: boolean;
  error?: string;
}

async function oneConversation(base: string, i: number): Promise<Outcome> {
  const conversationId = await createConversation(base);
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ conversationId, message: `load-${i}-question` }),
  });
  if (response.status !== 200)
    return { index: i, firstDeltaAt: Number.NaN, reconnected: false, error: `HTTP ${response.status}` };
  let runId = "";
  let lastId = "0";
  let text = "";
  let firstDeltaAt = 0;
  let done = false;
  let errorEvent: string | undefined;
  let drop = i % 2 === 0;
  const onMessage = (message: { event: string; data: string; id: string | null }) => {
    if (message.id) lastId = message.id;
    const data = JSON.parse(message.data) as Record<string, unknown>;
    if (message.event === "run") runId = String(data.runId);
    if (message.event === "answer" && data.status === "delta") {
      firstDeltaAt ||= clock();
      text += String(data.content);
    }
    if (message.event === "error") errorEvent = String(data.message);
    if (message.event === "done") done = true;
    return done || (drop && text.split(" ").length > 10 && lastId.includes("."));
  };
  await readSseUntil(response, onMessage);
  if (!done && drop) {
    drop = false;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await fetch(`${base}/api/runs/${runId}/events?after=${lastId}`);
    await readSseUntil(again, onMessage);
  }
  const expected = chunksFor(i).join("");
  const error =
    errorEvent ?? (!done ? "no done event" : text !== expected ? "answer text has a gap or a duplicate" : undefined);
  return { index: i, firstDeltaAt, reconnected: i % 2 === 0, error };
}

async function main() {
  const fake = await startFakeOllama();
  fake.setDefaultResponder((req) => {
    if (req.stream === false) return { content: "ready", delayMs: 50 };
    const i = /load-(\d+)-question/.exec(JSON.stringify(req.messages))?.[1] ?? "0";
    return { chunks: chunksFor(Number(i)), chunkDelayMs: TOKEN_MS };
  });
  const server = await startServer({ OLLAMA_BASE_URL: fake.url });
  try {
    // Warm up the routes, then measure memory before the load.
    await Promise.all(Array.from({ length: 4 }, (_, i) => oneConversation(server.base, 1000 + i)));
    const rssBefore = server.rssMb();
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
    // Past the 60 s during which finished runs stay resumable, one more wave shows what is retained.
    const settleMs = Number(process.env.LOAD_SETTLE_MS ?? 65_000);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    outcomes.push(
      ...(await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => oneConversation(server.base, 90_000 + i)))),
    );
    rssAfterWaves.push(server.rssMb());
    const health = (await (await fetch(`${server.base}/api/health`)).json()) as { runs: { active: number } };
    const errors = outcomes.filter((o) => o.error);
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
    console.log(
      `Load: ${CONVERSATIONS} concurrent conversations, ${TOKENS} tokens each at ${TOKEN_MS} ms/token, ${outcomes.filter((o) => o.reconnected).length} clients dropping and re-attaching mid-answer`,
    );
    console.log(
      `  wall time ${fmt(seconds)} s (one answer alone takes ${fmt((TOKENS * TOKEN_MS) / 1000)} s of model time)`,
    );
    console.log(
      `  added latency, model's first token → client: p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms, p99 ${fmt(percentile(latencies, 99))} ms`,
    );
    console.log(
      `  errors: ${errors.length} of ${outcomes.length} conversations${errors.length ? ` (${[...new Set(errors.map((e) => e.error))].join("; ")})` : ""}`,
    );
    console.log(
      `  server RSS: ${fmt(rssBefore, 0)} MB before; after waves 1, 2, 3 and (${fmt(settleMs / 1000, 0)} s later) 4 of ${CONVERSATIONS}: ${rssAfterWaves.map((mb) => fmt(mb, 0)).join(", ")} MB; active runs left: ${health.runs.active}`,
    );
    if (errors.length > 0 || health.runs.active !== 0) process.exitCode = 1;
  } finally {
    await server.stop();
    await fake.close();
  }
}

await main();
