/**
 * bench:fidelity, PDF: how faithfully pdf_to_text's reader gives the text of PDFs printed by real
 * producers (tests/fixtures/pdf/, made by scripts/fixtures/make-pdfs.mjs from known source texts):
 * Japanese text identical to its source after NFKC, recall and reading order against the source and
 * against poppler's pdftotext, mid-word cuts of the paged text, and reading speed per page against
 * pdftotext and pypdf where installed.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseConfig } from "@/lib/env-config";
import { openPdf, pdfLimits, readWindow } from "@/lib/tools/pdf/pdf-text";
import { sized } from "../smoke-mode.mts";
import { fmt } from "../support.mts";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "tests", "fixtures", "pdf");
const ALL_DOCUMENTS = [
  "ja-horizontal",
  "ja-vertical",
  "ja-radicals",
  "rtl",
  "chrome-code",
  "groff-code",
  "ghostscript-code",
  "two-column",
  "hyphenated",
  "long-manual",
];
/** Code listings: their lines are compared whole, indentation included. */
const ALL_LISTINGS = ["groff-code", "ghostscript-code"];
/** A smoke run reads one CJK document and one listing, and times the short listing instead of the manual. */
const DOCUMENTS = sized(ALL_DOCUMENTS, ["ja-horizontal", "groff-code"]);
const LISTINGS = sized(ALL_LISTINGS, ["groff-code"]);
const TIMED = sized("long-manual", "groff-code");
const CJK = new Set(["ja-horizontal", "ja-vertical", "ja-radicals"]);
/** The paged text's window, as a continuation of pdf_to_text reads it with a small max_chars. */
const WINDOW_CHARS = 2000;
const MID_WORD_GOAL = 0.05;

const limits = (overrides: Record<string, string> = {}) =>
  pdfLimits(parseConfig({ PDF_TIME_BUDGET_S: "600", ...overrides }));
const bytesOf = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, `${name}.pdf`)));
const sourceOf = (name: string) => fs.readFileSync(path.join(FIXTURES, `${name}.txt`), "utf8");

async function extract(bytes: Uint8Array, overrides?: Record<string, string>): Promise<string> {
  const pdf = await openPdf(bytes, limits(overrides));
  try {
    let text = "";
    for (let i = 0; i < pdf.pageCount; i++) text += await pdf.pageText(i);
    return text;
  } finally {
    await pdf.close();
  }
}

function has(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function pdftotext(file: string): string {
  return execFileSync("pdftotext", ["-enc", "UTF-8", file, "-"], { encoding: "utf8", maxBuffer: 64 << 20 });
}

/** Words (characters for Japanese), NFKC, punctuation dropped: what recall and order are counted in. */
function tokens(text: string, cjk: boolean): string[] {
  const plain = text.normalize("NFKC").toLowerCase();
  return cjk ? [...plain.replace(/[\s\p{P}]/gu, "")] : (plain.match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Share of the source's tokens found in the text (as a multiset). */
function recall(source: string[], text: string[]): number {
  const counts = new Map<string, number>();
  for (const token of text) counts.set(token, (counts.get(token) ?? 0) + 1);
  let found = 0;
  for (const token of source) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      found++;
      counts.set(token, left - 1);
    }
  }
  return source.length ? found / source.length : 1;
}

/** Share of the source's tokens found in the same order: longest common subsequence over source length. */
function order(source: string[], text: string[]): number {
  let previous = new Uint32Array(text.length + 1);
  let row = new Uint32Array(text.length + 1);
  for (const token of source) {
    for (let j = 1; j <= text.length; j++) {
      row[j] = token === text[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    }
    [previous, row] = [row, previous];
  }
  return source.length ? previous[text.length]! / source.length : 1;
}

const pct = (share: number) => `${fmt(share * 100)} %`;

/** Cuts of the paged text between two letters or digits, over all cuts. */
async function midWordCuts(names: string[]): Promise<{ cuts: number; midWord: number }> {
  let cuts = 0;
  let midWord = 0;
  for (const name of names) {
    const pdf = await openPdf(bytesOf(name), limits());
    try {
      let cursor = { pageIndex: 0, pageCharOffset: 0 };
      let previous = "";
      for (;;) {
        const window = await readWindow(pdf, cursor, { maxChars: WINDOW_CHARS, maxPages: 25 });
        if (previous && window.text) {
          cuts++;
          if (/[\p{L}\p{N}]$/u.test(previous) && /^[\p{L}\p{N}]/u.test(window.text)) midWord++;
        }
        previous = window.text;
        if (!window.hasMore) break;
        cursor = { pageIndex: window.nextPage, pageCharOffset: window.nextOffset };
      }
    } finally {
      await pdf.close();
    }
  }
  return { cuts, midWord };
}

/**
 * Wall-clock and CPU milliseconds per page (CPU: this process, worker threads included), the best of
 * `rounds`: the machine is shared, and the best run is the least disturbed.
 */
async function bestMsPerPage(
  rounds: number,
  pages: number,
  run: () => Promise<unknown> | unknown,
): Promise<{ wall: number; cpu: number }> {
  let wall = Number.POSITIVE_INFINITY;
  let cpu = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const used = process.cpuUsage();
    await run();
    const { user, system } = process.cpuUsage(used);
    wall = Math.min(wall, performance.now() - start);
    cpu = Math.min(cpu, (user + system) / 1000);
  }
  return { wall: wall / pages, cpu: cpu / pages };
}

export default async function pdf(): Promise<string[]> {
  const missed: string[] = [];
  const withPoppler = has("pdftotext", ["-v"]);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bench-fidelity-pdf-"));
  try {
    console.log(
      withPoppler
        ? "document          recall  order   | pdftotext: recall  order"
        : "pdftotext is not installed (apt-get install poppler-utils): compared with the source text only\ndocument          recall  order",
    );
    for (const name of DOCUMENTS) {
      const cjk = CJK.has(name);
      const source = tokens(sourceOf(name), cjk);
      const text = await extract(bytesOf(name));
      let line = `${name.padEnd(17)} ${pct(recall(source, tokens(text, cjk))).padStart(7)} ${pct(order(source, tokens(text, cjk))).padStart(7)}`;
      if (withPoppler) {
        const file = path.join(scratch, `${name}.pdf`);
        fs.writeFileSync(file, bytesOf(name));
        const theirs = tokens(pdftotext(file), cjk);
        line += `   |            ${pct(recall(source, theirs)).padStart(7)} ${pct(order(source, theirs)).padStart(7)}`;
      }
      console.log(line);
      if (cjk) {
        const identical =
          text.replace(/\s/g, "").normalize("NFKC") === sourceOf(name).replace(/\s/g, "").normalize("NFKC");
        const radicals = text.match(/[\u2E80-\u2FDF\uF900-\uFAFF\uFE10-\uFE1F\uFE30-\uFE4F]/gu)?.length ?? 0;
        console.log(
          `  CJK text identical to the source after NFKC: ${identical ? "yes" : "no"}; compatibility forms left: ${radicals}`,
        );
        if (!identical) missed.push(`PDF ${name}: CJK text differs from its source after NFKC`);
      }
    }

    for (const name of LISTINGS) {
      const source = sourceOf(name).trimEnd().split("\n");
      const same = (text: string) => {
        const lines = new Set(text.split("\n").map((line) => line.trimEnd()));
        return source.filter((line) => line !== "" && lines.has(line)).length;
      };
      const total = source.filter((line) => line !== "").length;
      const ours = same(await extract(bytesOf(name)));
      console.log(`${name}: lines identical to the source, indentation included: ${ours} of ${total}`);
      if (ours < total) missed.push(`PDF ${name}: ${total - ours} listing lines lost their indentation or text`);
    }

    const { cuts, midWord } = await midWordCuts(DOCUMENTS);
    const share = cuts ? midWord / cuts : 0;
    console.log(
      `paged text (windows of ${WINDOW_CHARS} characters): ${midWord} of ${cuts} cuts mid-word (${pct(share)})`,
    );
    if (share > MID_WORD_GOAL) missed.push(`PDF paging: ${pct(share)} of cuts mid-word (goal ≤ 5 %)`);

    const long = bytesOf(TIMED);
    const pages = (await openPdf(long, limits()).then(async (doc) => [doc.pageCount, await doc.close()]))[0] as number;
    const rounds = sized(3, 1);
    const two = await bestMsPerPage(rounds, pages, () => extract(long));
    const one = await bestMsPerPage(rounds, pages, () => extract(long, { PDF_TWO_WORKERS_MIN_PAGES: "100000" }));
    console.log(`speed on ${TIMED} (${pages} pages, best of ${rounds}, load average ${fmt(os.loadavg()[0] ?? 0)}):`);
    console.log(`  this reader, one worker:  ${fmt(one.wall)} ms/page (CPU ${fmt(one.cpu)} ms/page)`);
    console.log(`  this reader, two workers: ${fmt(two.wall)} ms/page (CPU ${fmt(two.cpu)} ms/page)`);
    const file = path.join(scratch, `${TIMED}.pdf`);
    fs.writeFileSync(file, long);
    if (withPoppler) {
      const poppler = await bestMsPerPage(rounds, pages, () => pdftotext(file));
      console.log(`  pdftotext: ${fmt(poppler.wall)} ms/page (a process per run)`);
    }
    const pypdf =
      "import sys,time,pypdf\nt,c=time.perf_counter(),time.process_time()\nr=pypdf.PdfReader(sys.argv[1])\nfor p in r.pages: p.extract_text()\nn=len(r.pages)\nprint((time.perf_counter()-t)*1000/n, (time.process_time()-c)*1000/n)";
    if (has("/usr/bin/python3", ["-c", "import pypdf"])) {
      const runs = Array.from({ length: rounds }, () =>
        execFileSync("/usr/bin/python3", ["-c", pypdf, file], { encoding: "utf8" }).trim().split(" ").map(Number),
      );
      const best = (index: number) => Math.min(...runs.map((run) => run[index]!));
      console.log(`  pypdf: ${fmt(best(0))} ms/page (CPU ${fmt(best(1))} ms/page; interpreter start excluded)`);
    } else {
      console.log("  pypdf: not installed (apt-get install python3-pypdf)");
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return missed;
}
