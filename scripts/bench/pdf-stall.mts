// npm run bench:pdf-stall — how late this process's event loop runs while the three PDF bombs of
// bench:load are read (docs/benchmarks.md), without a server: the main thread carries a steady, allocating load
// (40 "streams" each writing a small JSON event every 30 ms), then the same load while the bombs are
// read through `openPdf`. Prints the event loop's delay and the main thread's CPU time (from /proc,
// so load-independent) in both phases, and the machine's load average. A/B for where PDFs are parsed.
import fs from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { openPdf } from "@/lib/tools/pdf/pdf-text";
import { makeEndlessPdf, makeFlateBombPdf, makeHugeStringPdf } from "@/tests/support/pdf-bombs";
import { testPdfLimits } from "@/tests/support/pdf-work";
import { SMOKE, sizeFromEnv } from "./smoke-mode.mts";
import { fmt, percentile } from "./support.mts";

const STREAMS = 40;
const TOKEN_MS = 30;
const PHASE_MS = sizeFromEnv("PDF_STALL_PHASE_MS", 12_000, 300);
const ROUNDS = sizeFromEnv("PDF_STALL_ROUNDS", 2, 1);

/** CPU time of this process's main thread (its task id is the process id), ms. */
function mainThreadCpuMs(): number {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs the streams for `ms` (or until `until` settles): every gap beyond 30 ms between two writes. */
async function streams(ms: number, until?: Promise<unknown>): Promise<number[]> {
  const lates: number[] = [];
  const sink: string[] = [];
  const timers = Array.from({ length: STREAMS }, (_, i) => {
    let last = performance.now();
    let token = 0;
    return setInterval(() => {
      const now = performance.now();
      lates.push(now - last - TOKEN_MS);
      last = now;
      // What a delta costs the server in garbage: an event object, its JSON, a chunk.
      const event = { id: `${i}.${token}`, type: "answer", status: "delta", content: `c${i}t${token++} ` };
      sink.push(`event: answer\nid: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
      if (sink.length > 1000) sink.length = 0;
    }, TOKEN_MS);
  });
  await Promise.all([new Promise((resolve) => setTimeout(resolve, ms)), until]);
  for (const timer of timers) clearInterval(timer);
  return lates;
}

async function readBombs(): Promise<string[]> {
  // A smoke run does not wait the default 10 s for the endless PDF to be stopped.
  const limits = testPdfLimits(SMOKE ? { PDF_TIME_BUDGET_S: "1" } : {});
  const bombs = [makeFlateBombPdf(2048), makeHugeStringPdf(30), makeEndlessPdf()];
  return Promise.all(
    bombs.map(async (bytes) => {
      try {
        const pdf = await openPdf(bytes, limits);
        try {
          await pdf.pageText(0);
          return pdf.warnings.join("; ") || "read";
        } finally {
          await pdf.close();
        }
      } catch (error) {
        return error instanceof Error ? error.message.slice(0, 60) : String(error);
      }
    }),
  );
}

async function phase(name: string, bombs: boolean) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const cpuBefore = mainThreadCpuMs();
  const started = performance.now();
  delay.enable();
  const reading = bombs ? readBombs() : undefined;
  const lates = await streams(PHASE_MS, reading);
  delay.disable();
  const wallMs = performance.now() - started;
  const cpuMs = mainThreadCpuMs() - cpuBefore;
  const outcome = reading ? ` (${(await reading).join(" | ")})` : "";
  console.log(
    `  ${name}: stream late p50 ${fmt(percentile(lates, 50))} ms, p99 ${fmt(percentile(lates, 99))} ms, max ${fmt(Math.max(...lates))} ms; event loop delay max ${fmt(delay.max / 1e6 - 1)} ms; main thread CPU ${fmt(cpuMs / (wallMs / 1000), 0)} ms/s over ${fmt(wallMs / 1000)} s${outcome}`,
  );
}

// The server's heap holds a few hundred MB of objects: its major GCs are as long as that.
const HEAP_MB = sizeFromEnv("PDF_STALL_HEAP_MB", 150, 5);
const retained = Array.from({ length: HEAP_MB * 1024 }, (_, i) => ({ i, text: `retained ${i}`.repeat(20) }));
console.log(`PDF stall: ${STREAMS} streams every ${TOKEN_MS} ms, alone and while the three bombs are read`);
await readBombs(); // warm: pdf.js loaded once, spares kept
for (let round = 1; round <= ROUNDS; round++) {
  console.log(
    `round ${round}, load average ${(await import("node:os"))
      .loadavg()
      .map((n) => fmt(n))
      .join(" ")}`,
  );
  await phase("alone", false);
  await phase("bombs", true);
}
console.log(`  (${retained.length} retained objects)`);
process.exit(0);
