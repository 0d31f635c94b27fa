// npm run bench:tools — throughput of the tools' text extraction (docs/benchmarks.md):
// HTML extraction on a corpus of realistic pages, pdf_to_text on a 500-page PDF (first call, whole
// document, and the cost of a continuation on a stored file), and pdftotext when installed.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "@/lib/env-config";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { extractHtmlText } from "@/lib/tools/html-text";
import { renderObservation } from "@/lib/tools/outcome";
import { parsePageInfo } from "@/lib/tools/page-info";
import { pageTextCacheFor } from "@/lib/tools/page-text-cache";
import { openPdf, pdfLimits } from "@/lib/tools/pdf/pdf-text";
import type { FileStore, ToolServices } from "@/lib/tools/services";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { countPdfWork } from "@/tests/support/pdf-work";
import { sized } from "./smoke-mode.mts";

const now = () => performance.now();
const fmt = (n: number, digits = 1) => n.toFixed(digits);

function realisticPage(seed: number, paragraphs: number): string {
  const words = "model local research answer context token page browser server stream agent tool search document".split(
    " ",
  );
  const sentence = (i: number) =>
    Array.from({ length: 12 + (i % 9) }, (_, j) => words[(seed + i * 7 + j * 3) % words.length]).join(" ");
  const body = Array.from({ length: paragraphs }, (_, i) =>
    i % 11 === 5
      ? `<table><tr><th>k</th><th>v</th></tr>${Array.from({ length: 5 }, (_, r) => `<tr><td>row ${r}</td><td>${sentence(r)}</td></tr>`).join("")}</table>`
      : i % 13 === 7
        ? `<ul>${Array.from({ length: 6 }, (_, r) => `<li><a href="/x${r}">${sentence(r + i)}</a></li>`).join("")}</ul>`
        : `<p class="para">${sentence(i)}. <b>${sentence(i + 1)}</b>, <a href="/l${i}">${sentence(i + 2)}</a>.</p>`,
  ).join("\n");
  return `<!DOCTYPE html><html><head><title>Page ${seed}</title><meta charset="utf-8"><style>${".c{color:red}".repeat(200)}</style>
<script>${"var a=1;".repeat(500)}</script></head><body><header><nav>${Array.from({ length: 30 }, (_, i) => `<a href="/n${i}">Nav ${i}</a>`).join("")}</nav></header>
<main><article><h1>Article ${seed}</h1>${body}</article><aside>${"related ".repeat(100)}</aside></main><footer>${"footer link ".repeat(80)}</footer></body></html>`;
}

function benchHtml() {
  const corpus = Array.from({ length: sized(40, 3) }, (_, i) => realisticPage(i, 20 + (i % 5) * 60));
  const bytes = corpus.reduce((sum, page) => sum + Buffer.byteLength(page), 0);
  for (const page of corpus.slice(0, 5)) extractHtmlText(page); // warm up
  const rounds = sized(5, 1);
  const start = now();
  let chars = 0;
  for (let r = 0; r < rounds; r++) for (const page of corpus) chars += extractHtmlText(page).text.length;
  const seconds = (now() - start) / 1000;
  console.log(
    `HTML extraction: ${corpus.length} pages, ${fmt(bytes / 1024 / 1024, 2)} MB of HTML per round, ${rounds} rounds`,
  );
  console.log(
    `  ${fmt((bytes * rounds) / 1024 / 1024 / seconds)} MB/s, ${fmt((corpus.length * rounds) / seconds, 0)} pages/s, ${fmt(chars / rounds / corpus.length, 0)} text chars/page`,
  );
}

/** Attachments of one conversation, by id. */
function memoryFileStore(files: Record<string, Buffer>): FileStore {
  return {
    get: async (_conversation, fileId) => {
      const bytes = files[fileId];
      if (!bytes) return null;
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      const info = { id: fileId, filename: `${fileId}.pdf`, mime: "application/pdf", size: bytes.length, sha256 };
      return { ...info, pageCount: null, sourceUrl: null, bytes };
    },
    saveFetched: async () => {
      throw new Error("not used");
    },
  };
}

async function benchPdf() {
  const pageCount = sized(500, 5);
  const pdf = Buffer.from(
    makeTextPdf(
      Array.from({ length: pageCount }, (_, p) =>
        Array.from(
          { length: 40 },
          (_, l) => `Page ${p + 1}, line ${l + 1}: the quick brown fox jumps over the lazy dog.`,
        ),
      ),
    ),
  );
  const other = Buffer.from(
    makeTextPdf(Array.from({ length: sized(30, 2) }, (_, p) => [`Another document, page ${p + 1}.`])),
  );
  const files = memoryFileStore({ book: pdf, other });
  const config = parseConfig({});
  const services: ToolServices = {
    limits: config,
    secret: randomBytes(32),
    fetch: () => Promise.reject(new Error("no network in this benchmark")),
    files,
    pageCache: pageTextCacheFor(config),
  };
  const registry = createBuiltinRegistry(services);
  const context = {
    conversationId: "bench",
    signal: new AbortController().signal,
    language: "en" as const,
    urlGuard: new UrlLeakGuard(config),
  };
  // What the model reads, read back as the model would: body and footer.
  const call = async (args: Record<string, unknown>) =>
    parsePageInfo(
      renderObservation(
        await registry.execute("pdf_to_text", args, context, { maxResultChars: config.MAX_TOOL_RESULT_CHARS }),
      ),
    );

  const counter = countPdfWork();
  console.log(`pdf_to_text: a ${pageCount}-page PDF (${fmt(pdf.length / 1024 / 1024, 2)} MB) stored as an attachment`);
  let start = now();
  const first = await call({ url_or_path: "attachment:book" });
  console.log(
    `  first call: ${fmt(now() - start)} ms, ${counter.parses} pages parsed (MAX_PDF_PAGES ${config.MAX_PDF_PAGES})`,
  );

  // A continuation on the same stored file reuses the pages already parsed.
  const parsesBefore = counter.parses;
  start = now();
  const second = await call({ continue_from: first.pageInfo?.nextToken });
  const continuationMs = now() - start;
  const reparsed = counter.parses - parsesBefore;
  console.log(
    `  continuation call: ${fmt(continuationMs)} ms, ${reparsed} pages parsed (pages already returned are not parsed again)`,
  );

  start = now();
  let token = second.pageInfo?.nextToken;
  let calls = 2;
  let chars = first.body.length + second.body.length;
  while (token) {
    const page = await call({ continue_from: token, max_chars: 50_000 });
    chars += page.body.length;
    token = page.pageInfo?.nextToken;
    calls++;
  }
  const seconds = (now() - start) / 1000;
  console.log(
    `  whole document: ${calls} calls, ${counter.parses} page parses in total for ${pageCount} pages, ${fmt(chars / 1024, 0)} K chars`,
  );
  const pagesPerSecond = (pageCount - 2) / seconds;
  console.log(
    `  ${fmt(pagesPerSecond, 0)} pages/s through the tool (${fmt(seconds * 1000, 0)} ms for the rest of the document)`,
  );

  // The extractor alone, without the tool's paging: open once, every page's text (one budget for all).
  start = now();
  const doc = await openPdf(new Uint8Array(pdf), pdfLimits({ ...config, PDF_TIME_BUDGET_S: 600 }));
  for (let i = 0; i < doc.pageCount; i++) await doc.pageText(i);
  await doc.close();
  const extractorRate = pageCount / ((now() - start) / 1000);
  console.log(`  extractor alone (openPdf + pageText of every page): ${fmt(extractorRate, 0)} pages/s`);

  // The first call above started a worker thread (loading pdf.js into it); a closed document's thread
  // waits, warm, for the next PDF, as the extractor's does now.
  start = now();
  await call({ url_or_path: "attachment:other" });
  console.log(`  first call on another PDF, with a warm worker waiting: ${fmt(now() - start)} ms`);

  try {
    execFileSync("pdftotext", ["-v"], { stdio: "ignore" });
  } catch {
    console.log("  pdftotext: not installed (apt-get install poppler-utils for the comparison)");
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-pdf-"));
  const file = path.join(dir, "book.pdf");
  fs.writeFileSync(file, pdf);
  start = now();
  execFileSync("pdftotext", ["-layout", file, path.join(dir, "book.txt")]);
  const popplerSeconds = (now() - start) / 1000;
  fs.rmSync(dir, { recursive: true, force: true });
  const popplerRate = pageCount / popplerSeconds;
  console.log(`  pdftotext -layout: ${fmt(popplerRate, 0)} pages/s (whole file, one process)`);
  console.log(
    `  ratio: extractor ${fmt(extractorRate / popplerRate, 2)}× pdftotext; paged tool ${fmt(pagesPerSecond / popplerRate, 2)}× pdftotext`,
  );
}

benchHtml();
await benchPdf();
