/**
 * What reading one PDF may cost (docs/security.md, "Uploads and files"): pdf.js runs in a worker process
 * per open document, with a capped heap, a cap on any one decoded buffer, caps on the text one page may
 * yield, and a time budget per tool call or upload check. Callers build the limits from the configuration.
 */

export interface PdfLimits {
  /** JavaScript heap of one worker (V8 old generation), MB. */
  workerMemoryMb: number;
  /** Largest buffer pdf.js may allocate while decoding (a stream's inflated data), MB. */
  maxStreamMb: number;
  /** Text items, and characters, a page may yield before it is skipped. */
  maxPageItems: number;
  maxPageChars: number;
  /** Parsing time of one call (see `PdfBudget`), ms. */
  timeBudgetMs: number;
  /** Workers parsing at once in this process. */
  concurrency: number;
  /** Documents with this many pages or more are parsed by two workers (even and odd pages). */
  twoWorkersMinPages: number;
  /** Documents the shared cache keeps open, and for how long one may stay unused. */
  openDocuments: number;
  keepOpenMs: number;
}

/** The configuration keys the limits come from (a `Config` or a tool's `limits` carries them). */
export interface PdfLimitSettings {
  PDF_WORKER_MEMORY_MB: number;
  PDF_MAX_STREAM_MB: number;
  PDF_MAX_PAGE_ITEMS: number;
  PDF_MAX_PAGE_CHARS: number;
  PDF_TIME_BUDGET_S: number;
  PDF_WORKER_CONCURRENCY: number;
  PDF_TWO_WORKERS_MIN_PAGES: number;
  PDF_OPEN_DOCUMENTS: number;
  PDF_KEEP_OPEN_S: number;
}

export function pdfLimits(settings: PdfLimitSettings): PdfLimits {
  return {
    workerMemoryMb: settings.PDF_WORKER_MEMORY_MB,
    maxStreamMb: settings.PDF_MAX_STREAM_MB,
    maxPageItems: settings.PDF_MAX_PAGE_ITEMS,
    maxPageChars: settings.PDF_MAX_PAGE_CHARS,
    timeBudgetMs: settings.PDF_TIME_BUDGET_S * 1000,
    concurrency: settings.PDF_WORKER_CONCURRENCY,
    twoWorkersMinPages: settings.PDF_TWO_WORKERS_MIN_PAGES,
    openDocuments: settings.PDF_OPEN_DOCUMENTS,
    keepOpenMs: settings.PDF_KEEP_OPEN_S * 1000,
  };
}

/**
 * Parsing time one call may spend on a document: only the time its requests run in a worker counts,
 * not the time spent waiting for a free worker slot. One budget spans a whole tool call (open and
 * every page it reads) or one upload check.
 */
export class PdfBudget {
  readonly totalMs: number;
  #spentMs = 0;

  constructor(totalMs: number) {
    this.totalMs = totalMs;
  }

  get remainingMs(): number {
    return Math.max(0, this.totalMs - this.#spentMs);
  }

  spend(ms: number): void {
    this.#spentMs += ms;
  }
}
