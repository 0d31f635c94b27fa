// npm run bench:forms — every real model output in tests/fixtures/model-outputs replayed through the engine
// with a scripted model (docs/engine.md, "Tool calls written as text"): per family and in total, how
// many end in the call or answer the model meant with no markup on screen, and how long recognition takes
// per reply (it runs on every reply: it must stay linear, and the size cap bounds it).
import { recogniseToolCalls } from "@/lib/agent/tool-call-forms";
import { parseConfig } from "@/lib/env-config";
import { loadModelOutputs, offeredTools, replay, verdict } from "@/tests/support/model-outputs";
import { sized } from "./smoke-mode.mts";

const config = parseConfig(process.env);
const maxChars = config.TOOL_CALL_TEXT_MAX_CHARS;

/** Median microseconds of `fn` over `runs` runs (after a warm-up). */
function micros(fn: () => void, runs: number): number {
  for (let i = 0; i < Math.min(sized(50, 0), runs); i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

let passed = 0;
let total = 0;
const recognition: number[] = [];
console.log("family (file)            intended   recognition µs/reply (median, worst sample)");
for (const family of loadModelOutputs()) {
  let ok = 0;
  const times: number[] = [];
  for (const sample of family.samples) {
    const failure = verdict(sample, await replay(sample));
    if (failure === null) ok++;
    else console.log(`  FAIL ${sample.id}: ${failure}`);
    const tools = offeredTools(sample);
    times.push(micros(() => recogniseToolCalls(sample.raw, tools, { maxChars }), sized(500, 1)));
  }
  passed += ok;
  total += family.samples.length;
  recognition.push(...times);
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const constructed = family.samples.filter((sample) => sample.constructed).length;
  console.log(
    `${`${family.family} (${family.file})`.padEnd(26)}${`${ok}/${family.samples.length}`.padEnd(11)}${median.toFixed(1)} µs, ${(times.at(-1) as number).toFixed(1)} µs${constructed ? `   (${constructed} constructed)` : ""}`,
  );
}
recognition.sort((a, b) => a - b);
console.log(
  `total                     ${passed}/${total} (${((passed / total) * 100).toFixed(0)} %)   median ${(recognition[Math.floor(recognition.length / 2)] as number).toFixed(1)} µs per reply`,
);

// Linear time: replies of growing size, written to make a naive scanner backtrack (many openings
// that never close, a long prose reply, one long call), each at 1/4, 1/2 and all of the size cap.
const shapes: Record<string, (n: number) => string> = {
  "unclosed openings": (n) => '{"name": "web_search", "arguments": {"q": '.repeat(Math.ceil(n / 43)).slice(0, n),
  prose: (n) => "The quick brown fox jumps over the lazy dog. ".repeat(Math.ceil(n / 45)).slice(0, n),
  "one long call": (n) => `{"name": "web_search", "arguments": {"query": "${"x".repeat(Math.max(0, n - 50))}"}}`,
  "markers in prose": (n) => "Let me see [TOOL_CALLS <tool_ call> ".repeat(Math.ceil(n / 36)).slice(0, n),
};
console.log(`\nrecognition time by reply size (cap TOOL_CALL_TEXT_MAX_CHARS = ${maxChars}):`);
for (const [name, make] of Object.entries(shapes)) {
  const row = [maxChars / 4, maxChars / 2, maxChars].map((size) => {
    const text = make(size);
    return `${(micros(() => recogniseToolCalls(text, ["web_search"], { maxChars }), sized(20, 1)) / 1000).toFixed(2)} ms`;
  });
  console.log(`  ${name.padEnd(20)} ${row.join("  ")}`);
}
const over = "x".repeat(maxChars + 1);
console.log(
  `  over the cap         ${(micros(() => recogniseToolCalls(over, ["web_search"], { maxChars }), sized(200, 1)) / 1000).toFixed(3)} ms (read as prose)`,
);
if (passed !== total) process.exitCode = 1;
