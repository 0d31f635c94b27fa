import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseConfig } from "@/lib/env-config";
import { type PdfLimits, pdfLimits, pdfWorkerCounts } from "@/lib/tools/pdf/pdf-text";

/** The PDF limits of the default configuration, with `overrides` (environment values). */
export function testPdfLimits(overrides: Record<string, string> = {}): PdfLimits {
  return pdfLimits(parseConfig(overrides));
}

/**
 * Counts, from now on, pages parsed by PDF workers, documents closed (closed, evicted or stopped) and
 * worker processes stopped by a limit or a crash, to check that memoised and cached pages are not
 * parsed again, that documents are freed, and that a stopped worker is gone.
 */
export function countPdfWork(): { readonly parses: number; readonly closes: number; readonly stopped: number } {
  const start = pdfWorkerCounts();
  return {
    get parses() {
      return pdfWorkerCounts().pageParses - start.pageParses;
    },
    get closes() {
      return pdfWorkerCounts().documentsClosed - start.documentsClosed;
    },
    get stopped() {
      return pdfWorkerCounts().stopped - start.stopped;
    },
  };
}

/** Documents open now. */
export function openPdfDocuments(): number {
  const counts = pdfWorkerCounts();
  return counts.documents - counts.documentsClosed;
}

/**
 * Generous bound on the main thread's longest stall while a hostile PDF is read. Parsing on the
 * main thread stalls it for seconds on such files; machines running tests are shared and noisy.
 */
export const STALL_BOUND_MS = 500;

/** Runs `task`, recording the main thread's longest event-loop delay meanwhile. */
export async function measureStall<T>(
  task: () => Promise<T>,
): Promise<{ outcome: PromiseSettledResult<T>; longestStallMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const [outcome] = await Promise.allSettled([task()]);
  // A stall is recorded when the loop runs again: let the sampling timer fire once more.
  await new Promise((resolve) => setTimeout(resolve, 30));
  delay.disable();
  return { outcome: outcome!, longestStallMs: delay.max / 1e6 };
}
