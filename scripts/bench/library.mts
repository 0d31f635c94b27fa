// npm run bench:library — the library index (docs/benchmarks.md, "The library index"): index time per
// MB of text, query time (p50 / p95) over every file of one owner at 1,000 and at BENCH_LIBRARY_FILES
// files (default 10,000), and index size per MB of text — on SQLite, then on a throwaway PostgreSQL.
// Each file holds BENCH_LIBRARY_FILE_KB (default 4) KB of English and Japanese text. Each store runs in
// its own process (the store is chosen when the app's modules load), started by this one.
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

const EN = (
  "harbour river engine budget contract quarterly revenue solar panel bridge tunnel library archive " +
  "research method sample model training dataset benchmark latency throughput kernel compiler " +
  "database index query ranking passage citation evidence report summary review policy climate"
).split(" ");
const JA =
  "東京 大阪 天気 予報 電力 太陽光 発電所 報告書 研究 方法 会議 議事録 契約 予算 売上 品質 検索 索引 図書館 論文".split(
    " ",
  );

/** A deterministic pseudo-random sequence, so every run indexes the same text. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function fileText(index: number, chars: number): string {
  const next = random(index + 1);
  const pick = <T,>(list: T[]) => list[Math.floor(next() * list.length)] as T;
  let text = "";
  while (text.length < chars) {
    const sentence =
      next() < 0.5
        ? `${Array.from({ length: 12 }, () => pick(EN)).join(" ")}.`
        : `${Array.from({ length: 10 }, () => pick(JA)).join("の")}。`;
    text += next() < 0.15 ? `${sentence}\n\n` : `${sentence} `;
  }
  return text.slice(0, chars);
}

function queries(count: number): string[] {
  const next = random(99);
  const pick = <T,>(list: T[]) => list[Math.floor(next() * list.length)] as T;
  const forms = [
    () => pick(EN),
    () => `${pick(EN)} ${pick(EN)}`,
    () => `"${pick(EN)} ${pick(EN)}"`,
    () => `${pick(EN).slice(0, 4)}*`,
    () => pick(JA),
    () => `${pick(JA)}の${pick(JA)}`,
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
  steps: { files: number; p50: number; p95: number; max: number }[];
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
        const times: number[] = [];
        for (const query of texts) {
          const started = performance.now();
          await searchLibrary(db, {
            scope: { conversationId: reader.id },
            terms: parseQuery(query),
            limit: 10,
            offset: 0,
          });
          times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        steps.push({ files: count, p50: percentile(times, 0.5), p95: percentile(times, 0.95), max: times.at(-1) ?? 0 });
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
      `  query, ${String(step.files).padStart(6)} files  p50 ${step.p50.toFixed(1)} ms  p95 ${step.p95.toFixed(1)} ms  max ${step.max.toFixed(1)} ms (${QUERIES} queries)`,
    );
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
  report(runChild({ DATABASE_URL: "" }));
  const postgres = await startThrowawayPostgres();
  try {
    const database = await postgres.createDatabase("bench");
    report(runChild({ DATABASE_URL: database.url }));
  } finally {
    await postgres.stop();
  }
}
