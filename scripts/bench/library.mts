// npm run bench:library — the library index (docs/benchmarks.md): index time per
// MB of text, query time (p50 / p95) over every file of one owner at 1,000 and at BENCH_LIBRARY_FILES
// files (default 10,000), and index size per MB of text — on SQLite, then on a throwaway PostgreSQL.
// Each file holds BENCH_LIBRARY_FILE_KB (default 4) KB of English and Japanese text. Each store runs in
// its own process (the store is chosen when the app's modules load), started by this one;
// BENCH_LIBRARY_STORES=sqlite (or postgres) measures one.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sizeFromEnv } from "./smoke-mode.mts";

const FILES = sizeFromEnv("BENCH_LIBRARY_FILES", 10_000, 40);
const FIRST_STEP = Math.min(1000, FILES);
const FILE_KB = sizeFromEnv("BENCH_LIBRARY_FILE_KB", 4, 2);
const QUERIES = sizeFromEnv("BENCH_LIBRARY_QUERIES", 200, 10);
const FILES_PER_CONVERSATION = 100;
/** Which stores to measure: `sqlite`, `postgres`, or both (the default), comma-separated. */
const STORES = (process.env.BENCH_LIBRARY_STORES ?? "sqlite,postgres").split(",").map((store) => store.trim());

// A vocabulary shaped like real text: words drawn by Zipf's law (the n-th most common word is used
// about 1/n as often), so common words are in most passages and most words in few — a corpus of a
// few dozen words would make every query match every passage.
const SYLLABLES = "ka ri to mo sa ne lu vi da pe go ru shi an el or is un ta mi ko be fa zu no".split(" ");
const KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわを".split("");
const KANJI = "日本語研究報告東京大阪電力発電所太陽光予算売上品質検索索引図書館論文会議契約方法天気".split("");
const VOCABULARY = 20_000;

/** A deterministic pseudo-random sequence, so every run indexes the same text. */
function random(seed: number) {
  // mulberry32: 32-bit integer steps, exact in JavaScript numbers.
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeWords(letters: string[], count: number, seed: number, join: string): string[] {
  const next = random(seed);
  const words = new Set<string>();
  while (words.size < count) {
    const length = 2 + Math.floor(next() * 3);
    words.add(Array.from({ length }, () => letters[Math.floor(next() * letters.length)]).join(join));
  }
  return [...words];
}

const EN = makeWords(SYLLABLES, VOCABULARY, 7, "");
const JA = makeWords([...KANJI, ...KANA], VOCABULARY / 4, 11, "");

/** Cumulative Zipf weights over `size` ranks. */
function zipf(size: number): Float64Array {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  return cumulative.map((value) => value / total);
}

const EN_ZIPF = zipf(EN.length);
const JA_ZIPF = zipf(JA.length);

function zipfPick<T>(list: T[], cumulative: Float64Array, next: () => number): T {
  const target = next();
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((cumulative[middle] ?? 1) < target) low = middle + 1;
    else high = middle;
  }
  return list[low] as T;
}

function fileText(index: number, chars: number): string {
  const next = random(index + 1);
  let text = "";
  while (text.length < chars) {
    const sentence =
      next() < 0.5
        ? `${Array.from({ length: 12 }, () => zipfPick(EN, EN_ZIPF, next)).join(" ")}.`
        : `${Array.from({ length: 8 }, () => zipfPick(JA, JA_ZIPF, next)).join("")}。`;
    text += next() < 0.15 ? `${sentence}\n\n` : `${sentence} `;
  }
  return text.slice(0, chars);
}

/** What people search for: words neither among the most common nor the rarest (ranks 50 to 5,000). */
function queries(count: number): string[] {
  const next = random(99);
  const word = (list: string[]) => list[50 + Math.floor(next() * Math.min(4950, list.length - 50))] as string;
  const forms = [
    () => word(EN),
    () => `${word(EN)} ${word(EN)}`,
    () => `"${word(EN)} ${word(EN)}"`,
    () => `${word(EN).slice(0, 4)}*`,
    () => word(JA),
    () => `${word(JA)} ${word(JA)}`,
  ];
  return Array.from({ length: count }, (_, i) => (forms[i % forms.length] as () => string)());
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

interface StoreFigures {
  store: string;
  textMb: number;
  indexSecondsPerMb: number;
  indexMbPerTextMb: number;
  /** `limited`: queries whose words were in more passages than a search ranks. */
  steps: {
    files: number;
    pass: "first" | "warm";
    p50: number;
    p95: number;
    max: number;
    limited: number;
    slowest: { ms: number; query: string }[];
  }[];
}

/** One store's measurement, in this process: DATABASE_URL is set (PostgreSQL) or not (SQLite). */
async function measureStore(): Promise<StoreFigures> {
  const { closeDb, openDb, openPostgresDb } = await import("@/lib/db/client");
  const { createConversation, updateConversation } = await import("@/lib/db/conversations");
  const { insertFile } = await import("@/lib/db/files");
  const { searchLibrary, writeFileIndex } = await import("@/lib/db/library");
  const { cutPassages } = await import("@/lib/library/passages");
  const { parseQuery } = await import("@/lib/library/query");
  const { indexSize } = await import("./library-size.mts");
  const url = process.env.DATABASE_URL;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-library-"));
  const db = url ? await openPostgresDb(url) : await openDb(path.join(dir, "bench.sqlite"), { busyTimeoutMs: 5000 });
  try {
    const reader = await createConversation(db, { ownerId: null, title: "reader" });
    await updateConversation(db, { id: reader.id, ownerId: null, settings: { searchAllFiles: true } });
    const sizeBefore = await indexSize(db, url ? "postgres" : "sqlite");
    const steps: StoreFigures["steps"] = [];
    const texts = queries(QUERIES);
    let indexMs = 0;
    let textBytes = 0;
    let conversationId = "";
    for (let index = 0; index < FILES; index++) {
      if (index % FILES_PER_CONVERSATION === 0) {
        conversationId = (await createConversation(db, { ownerId: null, title: `c${index}` })).id;
      }
      const text = fileText(index, FILE_KB * 1024);
      textBytes += Buffer.byteLength(text);
      const file = await insertFile(db, {
        conversationId,
        origin: "upload",
        filename: `file-${index}.txt`,
        mime: "text/plain",
        bytes: Buffer.from(text),
        pageCount: null,
        sourceUrl: null,
      });
      const started = performance.now();
      await writeFileIndex(db, file.id, cutPassages(text));
      indexMs += performance.now() - started;
      const count = index + 1;
      if (count === FIRST_STEP || count === FILES) {
        // The queries twice: right after indexing, then again with the database read once (`warm`).
        for (const pass of ["first", "warm"] as const) {
          const times: { ms: number; query: string }[] = [];
          let limited = 0;
          for (const query of texts) {
            const started = performance.now();
            const result = await searchLibrary(db, {
              scope: { conversationId: reader.id },
              terms: parseQuery(query),
              limit: 10,
              offset: 0,
            });
            times.push({ ms: performance.now() - started, query });
            if (result.limited) limited++;
          }
          times.sort((a, b) => a.ms - b.ms);
          const ms = times.map((time) => time.ms);
          steps.push({
            files: count,
            pass,
            p50: percentile(ms, 0.5),
            p95: percentile(ms, 0.95),
            max: ms.at(-1) ?? 0,
            limited,
            slowest: times.slice(-5).reverse(),
          });
        }
      }
    }
    const textMb = textBytes / 1024 / 1024;
    const sizeAfter = await indexSize(db, url ? "postgres" : "sqlite");
    return {
      store: url ? "PostgreSQL" : "SQLite",
      textMb,
      indexSecondsPerMb: indexMs / 1000 / textMb,
      indexMbPerTextMb: (sizeAfter - sizeBefore) / 1024 / 1024 / textMb,
      steps,
    };
  } finally {
    await closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(figures: StoreFigures) {
  console.log(`\n${figures.store}: ${FILES} files of ${FILE_KB} KB (${figures.textMb.toFixed(1)} MB of text)`);
  console.log(`  indexing          ${figures.indexSecondsPerMb.toFixed(2)} s per MB of text`);
  console.log(
    `  index size        ${figures.indexMbPerTextMb.toFixed(2)} MB per MB of text (passages + full-text index)`,
  );
  for (const step of figures.steps) {
    console.log(
      `  query, ${String(step.files).padStart(6)} files, ${step.pass.padEnd(5)}  p50 ${step.p50.toFixed(1)} ms  p95 ${step.p95.toFixed(1)} ms  max ${step.max.toFixed(1)} ms (${QUERIES} queries, ${step.limited} ranked among the newest matches only)`,
    );
    console.log(`    slowest: ${step.slowest.map((time) => `${time.query} ${time.ms.toFixed(0)} ms`).join(", ")}`);
  }
}

if (process.env.BENCH_LIBRARY_CHILD === "1") {
  const figures = await measureStore();
  process.stdout.write(`\nFIGURES ${JSON.stringify(figures)}\n`);
} else {
  const { startThrowawayPostgres } = await import("@/tests/support/throwaway-postgres");
  const runChild = (env: Record<string, string>): StoreFigures => {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1] ?? ""], {
      env: { ...process.env, ...env, BENCH_LIBRARY_CHILD: "1" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const line = child.stdout.split("\n").find((text) => text.startsWith("FIGURES "));
    if (child.status !== 0 || !line) throw new Error(`the store's run failed:\n${child.stderr}\n${child.stdout}`);
    return JSON.parse(line.slice("FIGURES ".length)) as StoreFigures;
  };
  if (STORES.includes("sqlite")) report(runChild({ DATABASE_URL: "" }));
  if (STORES.includes("postgres")) {
    const postgres = await startThrowawayPostgres();
    try {
      const database = await postgres.createDatabase("bench");
      report(runChild({ DATABASE_URL: database.url }));
    } finally {
      await postgres.stop();
    }
  }
}
