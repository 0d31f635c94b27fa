import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/env-config";
import type { PdfLimitSettings } from "./pdf-limits";

/** The default configuration's PDF settings, passed into the script as a literal. */
function pdfLimitSettings(): PdfLimitSettings {
  const config = parseConfig({});
  return {
    PDF_WORKER_MEMORY_MB: config.PDF_WORKER_MEMORY_MB,
    PDF_MAX_STREAM_MB: config.PDF_MAX_STREAM_MB,
    PDF_MAX_PAGE_ITEMS: config.PDF_MAX_PAGE_ITEMS,
    PDF_MAX_PAGE_CHARS: config.PDF_MAX_PAGE_CHARS,
    PDF_TIME_BUDGET_S: config.PDF_TIME_BUDGET_S,
    PDF_WORKER_CONCURRENCY: config.PDF_WORKER_CONCURRENCY,
    PDF_TWO_WORKERS_MIN_PAGES: config.PDF_TWO_WORKERS_MIN_PAGES,
    PDF_OPEN_DOCUMENTS: config.PDF_OPEN_DOCUMENTS,
    PDF_KEEP_OPEN_S: config.PDF_KEEP_OPEN_S,
  };
}

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
let scratch: string | undefined;
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("pdf text under plain Node ESM", () => {
  // The Next.js server loads pdfjs-dist as an external package with Node's own ESM loader, not vite.
  // The modules (and the worker script) are copied into a `"type": "module"` package so Node runs
  // them as real ES modules (tsx only strips the types), with pdfjs-dist resolved from that
  // package's node_modules; the worker is found next to them, outside this project.
  it("opens a PDF and reads its text, with no pdf.js warnings", async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), "pdf-esm-"));
    await writeFile(path.join(scratch, "package.json"), '{ "type": "module" }\n');
    await symlink(path.join(root, "node_modules"), path.join(scratch, "node_modules"), "dir");
    // The modules and the worker script, and the modules of lib/ they import (`../page-fit`,
    // `../../util/semaphore`, and what those import), at their places under `lib/`.
    const copied = new Set<string>();
    const copy = async (file: string) => {
      if (copied.has(file)) return;
      copied.add(file);
      const target = path.join(scratch!, path.relative(root, file));
      await mkdir(path.dirname(target), { recursive: true });
      await cp(file, target);
      if (!file.endsWith(".ts")) return;
      const source = await readFile(file, "utf8");
      for (const [, specifier] of source.matchAll(/from "(\.\.?\/[^"]+)"/g)) {
        const imported = `${path.resolve(path.dirname(file), specifier!)}.ts`;
        if (imported.startsWith(path.join(root, "lib") + path.sep)) await copy(imported);
      }
    };
    for (const file of await readdir(here)) {
      if ((file.endsWith(".ts") || file.endsWith(".mjs")) && !file.endsWith(".test.ts"))
        await copy(path.join(here, file));
    }
    await cp(path.join(root, "tests/support/pdf-fixtures.ts"), path.join(scratch, "pdf-fixtures.ts"));

    const script = `
      import { openPdf, pdfLimits, readWindow } from "./lib/tools/pdf/pdf-text.ts";
      import { makeTextPdf } from "./pdf-fixtures.ts";
      const limits = pdfLimits(${JSON.stringify(pdfLimitSettings())});
      const pdf = await openPdf(makeTextPdf([["Hello from Node"], ["page two"]]), limits);
      const window = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 0 }, { maxChars: 100, maxPages: 25 });
      await pdf.close();
      process.stdout.write(JSON.stringify(window.text));
    `;
    await writeFile(path.join(scratch, "main.ts"), script);
    const tsx = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", tsx, "main.ts"], {
      cwd: scratch,
      timeout: 20_000,
    });
    expect(stderr).toBe("");
    // pdf.js prints its warnings to stdout: anything but the text would be one
    expect(stdout).toBe(JSON.stringify("Hello from Node\n\npage two"));
  });
});
