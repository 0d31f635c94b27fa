import "server-only";
import { createHash } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { RunEvent, Source } from "@/lib/protocol/run-events";
import type { SourcePages, SourcePart, SourceSummary, StoredSource } from "@/lib/protocol/sources";
import type { Db } from "./client";
import { appendRunEvent } from "./runs";
import { messages, runSourceParts, runSources } from "./schema";

/**
 * A run's sources (docs/research.md, "The source store"): the pages and files its tools read, under
 * the numbers its answer cites, with the text of every part read. A source's text is its parts'
 * texts joined by a blank line, in the order read; its hash and length are of that text.
 */

/** Between two parts of a source's text. */
export const PART_SEPARATOR = "\n\n";

export interface SourcePartInput {
  runId: string;
  /** The source as the run numbered it (the `tool_result` step's `source`). */
  source: Source;
  /** What the tool returned of it, without the paging footer. */
  text: string;
  pages?: SourcePages;
  /** When it was read (epoch ms): the source's `retrievedAt` when this is its first part. */
  at: number;
}

/**
 * Stores an event of the run and, when it is a `tool_result` step that read a source, that read
 * as a part of the source, in one transaction: a write retried (a busy database) or lost (which
 * fails the run) is retried or lost whole.
 */
export async function storeRunEvent(db: Db, values: { runId: string; seq: number; event: RunEvent }): Promise<void> {
  const read = sourceRead(values.runId, values.event);
  if (!read) return appendRunEvent(db, values);
  await db.transaction(async (tx) => {
    await appendRunEvent(tx, values);
    await appendSourcePart(tx, read);
  });
}

/**
 * What a `tool_result` step read of its source: the observation's text without its paging footer
 * (its first `paging.bodyChars` characters when it has one), with the PDF pages it came from.
 */
export function sourceRead(runId: string, event: RunEvent): SourcePartInput | null {
  if (event.event !== "step" || event.data.type !== "tool_result" || !event.data.source) return null;
  const { source, observation, paging, at } = event.data;
  const text = paging ? observation.slice(0, paging.bodyChars) : observation;
  const { n, url, title } = source;
  const pages = event.data.pages ?? paging?.sourcePages;
  return { runId, source: { n, url, title }, text, at, ...(pages ? { pages } : {}) };
}

/**
 * Stores one read of a source: a new source with its first part, or a further part of a known one.
 * A part whose text is already stored for the source (the same page read again) is not stored twice,
 * nor is an empty one; the source itself is stored either way, since the answer may cite it.
 * Returns whether a part was added.
 */
export async function appendSourcePart(db: Db, input: SourcePartInput): Promise<boolean> {
  const { runId, source, text, pages, at } = input;
  const { n } = source;
  return db.transaction(async (tx) => {
    const [known] = await tx
      .select({ n: runSources.n })
      .from(runSources)
      .where(and(eq(runSources.runId, runId), eq(runSources.n, n)))
      .limit(1);
    const stored = known ? await partTexts(tx, runId, n) : [];
    const adds = text.length > 0 && !stored.includes(text);
    const texts = adds ? [...stored, text] : stored;
    const joined = texts.join(PART_SEPARATOR);
    const content = { contentHash: sha256(joined), chars: joined.length };
    if (!known) {
      await tx
        .insert(runSources)
        .values({ runId, n, url: source.url, title: source.title, retrievedAt: at, ...content });
    } else if (adds) {
      await tx
        .update(runSources)
        .set(content)
        .where(and(eq(runSources.runId, runId), eq(runSources.n, n)));
    }
    if (adds) {
      await tx.insert(runSourceParts).values({
        runId,
        n,
        seq: stored.length,
        text,
        pageFirst: pages?.first ?? null,
        pageLast: pages?.last ?? null,
        pageTotal: pages?.total ?? null,
      });
    }
    return adds;
  });
}

async function partTexts(db: Db, runId: string, n: number): Promise<string[]> {
  const rows = await db
    .select({ text: runSourceParts.text })
    .from(runSourceParts)
    .where(and(eq(runSourceParts.runId, runId), eq(runSourceParts.n, n)))
    .orderBy(asc(runSourceParts.seq));
  return rows.map((row) => row.text);
}

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

const summaryColumns = {
  n: runSources.n,
  url: runSources.url,
  title: runSources.title,
  retrievedAt: runSources.retrievedAt,
  contentHash: runSources.contentHash,
  chars: runSources.chars,
};

/** The run's sources without their text, by number. */
export function listRunSources(db: Db, { runId }: { runId: string }): Promise<SourceSummary[]> {
  return db.select(summaryColumns).from(runSources).where(eq(runSources.runId, runId)).orderBy(asc(runSources.n));
}

/** Source n of the run, whole; `not_found:source` when the run has no such source. */
export async function getRunSource(db: Db, { runId, n }: { runId: string; n: number }): Promise<StoredSource> {
  const [summary] = await db
    .select(summaryColumns)
    .from(runSources)
    .where(and(eq(runSources.runId, runId), eq(runSources.n, n)))
    .limit(1);
  if (!summary) throw new AppError("not_found:source", `Source ${n} of run ${runId} not found.`);
  return (await withParts(db, runId, [summary]))[0] as StoredSource;
}

/** Every source of the run, whole, by number. */
export async function runSourcesWhole(db: Db, { runId }: { runId: string }): Promise<StoredSource[]> {
  return withParts(db, runId, await listRunSources(db, { runId }));
}

/** Every source of the run that ended with this message, whole; none for a message without a run. */
export async function messageSources(db: Db, { messageId }: { messageId: string }): Promise<StoredSource[]> {
  const [message] = await db
    .select({ runId: messages.runId })
    .from(messages)
    .where(eq(messages.id, messageId))
    .limit(1);
  return message?.runId ? runSourcesWhole(db, { runId: message.runId }) : [];
}

async function withParts(db: Db, runId: string, summaries: SourceSummary[]): Promise<StoredSource[]> {
  if (summaries.length === 0) return [];
  const rows = await db
    .select()
    .from(runSourceParts)
    .where(eq(runSourceParts.runId, runId))
    .orderBy(asc(runSourceParts.n), asc(runSourceParts.seq));
  return summaries.map((summary) => {
    const texts: string[] = [];
    const parts: SourcePart[] = [];
    let start = 0;
    for (const row of rows) {
      if (row.n !== summary.n) continue;
      if (texts.length > 0) start += PART_SEPARATOR.length;
      const end = start + row.text.length;
      texts.push(row.text);
      parts.push({ start, end, ...(pagesOf(row) ? { pages: pagesOf(row) } : {}) });
      start = end;
    }
    return { ...summary, text: texts.join(PART_SEPARATOR), parts };
  });
}

function pagesOf(row: { pageFirst: number | null; pageLast: number | null; pageTotal: number | null }) {
  const { pageFirst, pageLast, pageTotal } = row;
  return pageFirst !== null && pageLast !== null && pageTotal !== null
    ? { first: pageFirst, last: pageLast, total: pageTotal }
    : undefined;
}

/**
 * Copies every source of run `from`, with its parts, to run `to` under the same numbers: a resumed
 * research run starts from the interrupted run's sources, so the `[n]` of the sections it keeps stay right.
 */
export async function copyRunSources(db: Db, { from, to }: { from: string; to: string }): Promise<void> {
  const sources = await db.select().from(runSources).where(eq(runSources.runId, from)).orderBy(asc(runSources.n));
  if (sources.length === 0) return;
  await db.insert(runSources).values(sources.map((source) => ({ ...source, runId: to })));
  const parts = await db.select().from(runSourceParts).where(eq(runSourceParts.runId, from));
  if (parts.length > 0) await db.insert(runSourceParts).values(parts.map((part) => ({ ...part, runId: to })));
}
