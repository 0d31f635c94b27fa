import { LRUCache } from "lru-cache";
import { openPdf, type PdfDocument, type PdfText } from "./pdf-document";
import { PdfBudget, type PdfLimits } from "./pdf-limits";

/**
 * Open documents for stored files (attachments, fetched files), keyed by the file's sha256, so a
 * continuation call on the same file reuses the pages it already parsed. Least recently used
 * documents beyond the capacity are evicted and closed, but only once no caller still holds them:
 * each open returns a lease, and `close()` on it releases the lease (callers should close in a
 * `finally`; a lease that is simply dropped is released only when it is garbage-collected).
 * Every open document holds a worker process (up to ~100 MB), so the capacity bounds idle workers, and
 * a document nobody has used for `limits.keepOpenMs` is closed. A document whose worker was stopped
 * (time budget, memory) or died is dropped at once.
 */

interface Entry {
  document: Promise<PdfDocument>;
  leases: number;
  evicted: boolean;
  /** Closes the document once it has stayed unused too long; set while no lease is held. */
  idleTimer?: NodeJS.Timeout;
  /** Starts `idleTimer` (called when the last lease is released). */
  becameIdle(): void;
}

async function release(entry: Entry, document: PdfDocument): Promise<void> {
  entry.leases--;
  if (entry.leases > 0) return;
  if (entry.evicted) await document.close();
  else entry.becameIdle();
}

/** Safety net: a lease dropped without `close()` is released when it is garbage-collected. */
const unreleased = new FinalizationRegistry<{ entry: Entry; document: PdfDocument }>(({ entry, document }) => {
  release(entry, document).catch(() => undefined);
});

/** One caller's hold on a cached document; its pages are parsed within the caller's budget. */
class PdfLease implements PdfText {
  readonly #entry: Entry;
  readonly #document: PdfDocument;
  readonly #budget: PdfBudget;
  #released = false;

  constructor(entry: Entry, document: PdfDocument, budget: PdfBudget) {
    this.#entry = entry;
    this.#document = document;
    this.#budget = budget;
    unreleased.register(this, { entry, document }, this);
  }

  get pageCount(): number {
    return this.#document.pageCount;
  }

  get warnings(): string[] {
    return this.#document.warnings;
  }

  pageText(index: number, budget = this.#budget): Promise<string> {
    if (this.#released) return Promise.reject(new Error("The PDF document is closed."));
    return this.#document.pageText(index, budget);
  }

  async close(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    unreleased.unregister(this);
    await release(this.#entry, this.#document);
  }
}

export class PdfDocumentCache {
  /** Least recently used first out (`lru-cache`); one pushed out beyond the capacity is evicted. */
  #entries: LRUCache<string, Entry>;

  constructor(capacity: number) {
    this.#entries = this.#lru(checkedCapacity(capacity));
  }

  #lru(capacity: number): LRUCache<string, Entry> {
    return new LRUCache<string, Entry>({
      max: capacity,
      dispose: (entry, _key, reason) => {
        if (reason === "evict") void this.#evict(entry);
      },
    });
  }

  /**
   * Opens (or reuses) the document stored under `key`; `bytes` is called only on a miss. Opening and
   * the lease's pages are parsed within `budget` (default: a fresh one from `limits`).
   */
  async open(
    key: string,
    bytes: () => Uint8Array | Promise<Uint8Array>,
    limits: PdfLimits,
    budget = new PdfBudget(limits.timeBudgetMs),
  ): Promise<PdfText> {
    let entry = this.#entries.get(key);
    if (!entry) {
      const created: Entry = {
        document: (async () => openPdf(await bytes(), limits, budget))(),
        leases: 0,
        evicted: false,
        becameIdle: () => {
          created.idleTimer = setTimeout(() => {
            if (this.#entries.peek(key) !== created || created.leases > 0) return;
            this.#entries.delete(key);
            void this.#evict(created);
          }, limits.keepOpenMs);
          created.idleTimer.unref();
        },
      };
      const forget = () => {
        if (this.#entries.peek(key) === created) this.#entries.delete(key);
      };
      // A file that failed to open is not remembered: the next call tries again. Nor is a document
      // whose worker was stopped or died.
      created.document.then((document) => document.onEnd(forget), forget);
      entry = created;
    }
    clearTimeout(entry.idleTimer);
    entry.leases++; // taken before any await, so a concurrent eviction sees the document in use
    this.#entries.set(key, entry); // the least recently used beyond the capacity are evicted
    let document: PdfDocument;
    try {
      document = await entry.document;
    } catch (error) {
      entry.leases--;
      throw error;
    }
    return new PdfLease(entry, document, budget);
  }

  /** Changes the capacity, evicting the least recently used documents beyond it. */
  resize(capacity: number): void {
    if (checkedCapacity(capacity) === this.#entries.max) return;
    // lru-cache's capacity is fixed: the entries move to a new one, least recently used first.
    const old = this.#entries;
    this.#entries = this.#lru(capacity);
    for (const key of [...old.rkeys()]) {
      const entry = old.peek(key);
      if (entry) this.#entries.set(key, entry);
    }
  }

  /** Evicts every document; those still leased close when their last lease is released. */
  async clear(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear(); // not an eviction: each is evicted below
    await Promise.all(entries.map((entry) => this.#evict(entry)));
  }

  get size(): number {
    return this.#entries.size;
  }

  async #evict(entry: Entry): Promise<void> {
    entry.evicted = true;
    clearTimeout(entry.idleTimer);
    if (entry.leases > 0) return;
    const document = await entry.document.catch(() => undefined);
    await document?.close();
  }
}

function checkedCapacity(capacity: number): number {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("PDF cache capacity must be >= 1.");
  return capacity;
}

let shared: PdfDocumentCache | undefined;

/**
 * The shared cache for stored files, keyed by sha256: a continuation call on the same stored file
 * does not re-parse pages it already returned. It keeps `limits.openDocuments` documents. Always
 * `close()` the result (it releases the lease).
 */
export function openPdfCached(
  key: string,
  bytes: () => Uint8Array | Promise<Uint8Array>,
  limits: PdfLimits,
  budget?: PdfBudget,
): Promise<PdfText> {
  shared ??= new PdfDocumentCache(limits.openDocuments);
  shared.resize(limits.openDocuments);
  return shared.open(key, bytes, limits, budget);
}
