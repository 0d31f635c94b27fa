// Loaded into the benchmarked server with --require (support.mts): the main thread's event-loop
// delay and its garbage-collection pauses, written as JSON to BENCH_PROBE_FILE on SIGUSR2 and then
// reset, so a benchmark tells the server's own stalls from those of its clients (which share one
// process with the fake model), and stalls of the garbage collector from the rest.
const fs = require("node:fs");
const { monitorEventLoopDelay, PerformanceObserver } = require("node:perf_hooks");

const RESOLUTION_MS = 5;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
/** The GC pauses of the main thread since the last snapshot: longest, and their total. */
let gc = { longest: 0, total: 0, kind: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.total += entry.duration;
    if (entry.duration > gc.longest) gc = { ...gc, longest: entry.duration, kind: entry.detail?.kind ?? 0 };
  }
}).observe({ entryTypes: ["gc"] });
// The histogram holds whole timer intervals: the delay is what exceeds the interval.
const late = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
/** As load.mts's STEADY_AFTER_MS: from then on, a wave's conversations have all started. */
const STEADY_AFTER_MS = 3000;
/** When the longest stall began, in s since the last snapshot (a wave's start or later?); the longest after the starts. */
let since = performance.now();
let last = since;
let worst = { ms: 0, at: 0 };
let steady = 0;
setInterval(() => {
  const now = performance.now();
  const stall = now - last - RESOLUTION_MS;
  if (stall > worst.ms) worst = { ms: stall, at: (last - since) / 1000 };
  if (last - since >= STEADY_AFTER_MS) steady = Math.max(steady, stall);
  last = now;
}, RESOLUTION_MS).unref();
process.on("SIGUSR2", () => {
  const snapshot = {
    p50: late(delay.percentile(50)),
    p99: late(delay.percentile(99)),
    max: late(delay.max),
    gc,
    steady,
    worst,
  };
  const file = process.env.BENCH_PROBE_FILE;
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(snapshot));
  fs.renameSync(`${file}.tmp`, file); // the benchmark never reads half a file
  delay.reset();
  gc = { longest: 0, total: 0, kind: 0 };
  since = performance.now();
  worst = { ms: 0, at: 0 };
  steady = 0;
});
