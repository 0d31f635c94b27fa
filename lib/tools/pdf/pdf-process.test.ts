import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { makeEndlessPdf } from "@/tests/support/pdf-bombs";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { testPdfLimits } from "@/tests/support/pdf-work";
import { openPdf, PdfBudget, PdfError } from "./pdf-text";
import { pdfWorkerCounts, pdfWorkerPids } from "./pdf-worker-host";

const linux = process.platform === "linux";

/** The nice value of every thread of process `pid` (field 19 of each /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return Number(fields[16]);
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isRunning(pid);
}

describe("PDF worker processes: pdf.js runs outside the server's process", () => {
  it.runIf(linux)("parses in another process, every thread of which runs at nice 19", async () => {
    const pdf = await openPdf(makeTextPdf([["niced"]]), testPdfLimits());
    try {
      expect(await pdf.pageText(0)).toBe("niced");
      const pids = pdfWorkerPids();
      expect(pids.length).toBeGreaterThan(0);
      expect(pids).not.toContain(process.pid);
      // V8's garbage collection and compiler threads included: a bomb's GC work yields to the server.
      for (const pid of pids) expect(new Set(threadNiceValues(pid))).toEqual(new Set([19]));
    } finally {
      await pdf.close();
    }
  });

  it("a worker process killed mid-parse fails the call with a clear error, and the next PDF gets a new process", async () => {
    // A heap limit of its own, so no warm process of another test is reused: the new one is the victim.
    const limits = testPdfLimits({ PDF_WORKER_MEMORY_MB: "200" });
    const before = new Set(pdfWorkerPids());
    const endless = await openPdf(makeEndlessPdf(), limits);
    const [victim] = pdfWorkerPids().filter((pid) => !before.has(pid));
    const parsing = endless.pageText(0, new PdfBudget(60_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(victim!, "SIGKILL");
    const error = await parsing.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PdfError);
    expect((error as PdfError).message).toBe("Reading this PDF failed: the PDF reader stopped unexpectedly (SIGKILL).");
    await endless.close();
    const next = await openPdf(makeTextPdf([["after the crash"]]), limits);
    expect(await next.pageText(0)).toBe("after the crash");
    expect(pdfWorkerPids()).not.toContain(victim);
    await next.close();
  });

  it("a spare process that died takes no place among the spares: the next closed document's process is kept warm", async () => {
    // A heap limit of its own (spares are reused by it), and room for exactly one more spare.
    const limits = {
      ...testPdfLimits({ PDF_WORKER_MEMORY_MB: "190" }),
      concurrency: pdfWorkerCounts().spares + 1,
    };
    const before = new Set(pdfWorkerPids());
    const first = await openPdf(makeTextPdf([["first"]]), limits);
    const [victim] = pdfWorkerPids().filter((pid) => !before.has(pid));
    await first.close();
    process.kill(victim!, "SIGKILL");
    expect(await waitUntilGone(victim!)).toBe(true);
    await expect.poll(() => pdfWorkerCounts().spares).toBe(limits.concurrency - 1);

    const second = await openPdf(makeTextPdf([["second"]]), limits);
    expect(await second.pageText(0)).toBe("second");
    await second.close();
    const started = pdfWorkerCounts().started;
    const third = await openPdf(makeTextPdf([["third"]]), limits);
    expect(await third.pageText(0)).toBe("third");
    await third.close();
    expect(pdfWorkerCounts().started).toBe(started);
  });

  // The server stands in: a script that reads an endless PDF, then dies.
  const script = path.resolve(import.meta.dirname, "../../../tests/support/pdf-server-dies.mts");
  it.runIf(linux).each([
    ["is killed with SIGKILL (no handler runs)", "SIGKILL"],
    ["exits, on a system without setpriv", "exit"],
  ])(
    "no worker process outlives the server when it %s",
    async (_how, how) => {
      const run = promisify(execFile)(process.execPath, ["--import", "tsx", script, how], {
        cwd: path.resolve(import.meta.dirname, "../../.."),
        timeout: 60_000,
      });
      const { stdout } = await run.catch((error: { stdout: string }) => error);
      const pids = JSON.parse(stdout.trim()) as number[];
      expect(pids.length).toBe(1);
      expect(await waitUntilGone(pids[0]!)).toBe(true);
    },
    60_000,
  );
});
