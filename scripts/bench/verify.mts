// npm run bench:verify — the passage finder and the lexical check on a labelled set of real claims
// (docs/benchmarks.md): top-1 accuracy of the finder (the passage chosen holds the labelled evidence),
// how many claims with a changed number, name or date the lexical check alone catches, how many
// negations it catches (it is not built to), false alarms on supported claims, and time per claim.
// With OLLAMA_BASE_URL (and VERIFY_MODEL, default llama3.2:latest), the verifier's own accuracy on
// the same claims, each judged on the passage the finder chose. A smoke run measures it through the
// fake Ollama, so the path keeps running; its figures then mean nothing.
import fs from "node:fs";
import path from "node:path";
import { missingFacts } from "@/lib/citations/lexical";
import { findPassage, type PassageSource } from "@/lib/citations/passages";
import { type JudgedVerdict, modelVerifier } from "@/lib/citations/verifier";
import { OllamaApi } from "@/lib/llm/ollama-api";
import { createOllamaLLM } from "@/lib/llm/ollama-llm";
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { SMOKE, sized } from "./smoke-mode.mts";

interface LabelledClaim {
  source: string;
  claim: string;
  label: "supported" | "not_supported";
  kind: "paraphrase" | "number" | "name" | "date" | "negation";
  evidence: string;
}

const DIR = path.join(import.meta.dirname, "..", "..", "tests", "fixtures", "citations");

/** A source file's text: what follows its header (the lines that say where it came from, up to `---`). */
function sourceText(file: string): string {
  const raw = fs.readFileSync(path.join(DIR, "sources", file), "utf8");
  const end = raw.indexOf("\n---\n");
  return end < 0 ? raw : raw.slice(end + 5);
}

const percent = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)} %`);

/** The verifier's verdicts on the claims whose passage was found, against their labels. */
async function measureVerifier(
  baseUrl: string,
  model: string,
  judged: { labelled: LabelledClaim; passage: string; title: string }[],
) {
  const info = await new OllamaApi(baseUrl).describe(model);
  const llm = createOllamaLLM({
    baseUrl,
    model,
    abilities: info.abilities,
    modelContextLength: info.contextLength,
    numCtx: 8192,
  });
  const verifier = modelVerifier(llm);
  const tally = new Map<string, { right: number; partly: number; unjudged: number; of: number }>();
  const started = performance.now();
  for (const { labelled, passage, title } of judged) {
    const judgement = await verifier.verify({ claim: labelled.claim, title, passage });
    const key = labelled.label === "supported" ? "supported" : labelled.kind;
    const row = tally.get(key) ?? { right: 0, partly: 0, unjudged: 0, of: 0 };
    row.of++;
    if (!judgement.ok) row.unjudged++;
    else if (judgement.verdict === "partly") row.partly++;
    else if (
      judgement.verdict === (labelled.label === "supported" ? "supported" : ("unsupported" satisfies JudgedVerdict))
    )
      row.right++;
    tally.set(key, row);
  }
  const seconds = (performance.now() - started) / 1000;
  const right = [...tally.values()].reduce((sum, row) => sum + row.right, 0);
  console.log(`Verifier ${model} at ${baseUrl}: ${right}/${judged.length} = ${percent(right, judged.length)} right`);
  for (const [key, row] of tally) {
    console.log(`  ${key}: ${row.right}/${row.of} right, ${row.partly} partly, ${row.unjudged} unjudged`);
  }
  console.log(`  ${((seconds * 1000) / Math.max(1, judged.length)).toFixed(0)} ms per claim`);
}

/** The fake Ollama as the verifier's server for a smoke run: every claim judged supported. */
async function fakeVerifierServer() {
  const fake = await startFakeOllama();
  fake.setDefaultResponder(() => ({
    toolCalls: [{ name: "judge_citation", arguments: { verdict: "supported", reason: "The passage says so." } }],
  }));
  return fake;
}

async function main() {
  const all = JSON.parse(fs.readFileSync(path.join(DIR, "claims.json"), "utf8")) as LabelledClaim[];
  const claims = all.slice(0, sized(all.length, 6));
  const sources = new Map<string, PassageSource>();
  for (const claim of claims)
    if (!sources.has(claim.source)) sources.set(claim.source, { text: sourceText(claim.source), parts: [] });
  let top1 = 0;
  const caught: Record<string, { caught: number; of: number }> = {};
  let falseAlarms = 0;
  let supported = 0;
  const misses: string[] = [];
  const judged: { labelled: LabelledClaim; passage: string; title: string }[] = [];
  const started = performance.now();
  for (const labelled of claims) {
    const source = sources.get(labelled.source);
    if (!source) continue;
    const match = findPassage(labelled.claim, source);
    if (match) judged.push({ labelled, passage: match.text, title: labelled.source });
    const found = match?.text.includes(labelled.evidence) ?? false;
    if (found) top1++;
    else misses.push(`  missed: ${labelled.claim}`);
    const missing = match ? missingFacts(labelled.claim, match.text) : ["(no passage)"];
    if (labelled.label === "supported") {
      supported++;
      if (missing.length > 0) falseAlarms++;
    } else {
      const tally = caught[labelled.kind] ?? { caught: 0, of: 0 };
      tally.of++;
      if (missing.length > 0) tally.caught++;
      caught[labelled.kind] = tally;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const japanese = claims.filter((c) => /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u.test(c.claim)).length;
  console.log(`Labelled claims: ${claims.length} (${japanese} Japanese) over ${sources.size} sources`);
  console.log(`Passage finder top-1: ${top1}/${claims.length} = ${percent(top1, claims.length)} (goal ≥ 90 %)`);
  for (const kind of ["number", "name", "date", "negation"]) {
    const tally = caught[kind] ?? { caught: 0, of: 0 };
    console.log(`Lexical check catches changed ${kind}: ${tally.caught}/${tally.of}`);
  }
  console.log(`Lexical false alarms on supported claims: ${falseAlarms}/${supported}`);
  console.log(
    `Time per claim (index built on first use included): ${((seconds * 1000) / claims.length).toFixed(2)} ms`,
  );
  for (const miss of misses) console.log(miss);
  const baseUrl = process.env.OLLAMA_BASE_URL;
  if (baseUrl) {
    await measureVerifier(baseUrl, process.env.VERIFY_MODEL ?? "llama3.2:latest", judged);
  } else if (SMOKE) {
    const fake = await fakeVerifierServer();
    try {
      await measureVerifier(fake.url, "llama3.2:latest", judged);
    } finally {
      await fake.close();
    }
  } else {
    console.log("Verifier accuracy: not measured (no OLLAMA_BASE_URL: the verifier needs a real model).");
  }
}

await main();
