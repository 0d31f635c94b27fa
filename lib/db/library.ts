import "server-only";
import { and, asc, count, desc, eq, inArray, isNull, ne, notInArray, or, type SQL, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { chosenStore } from "@/lib/env-config";
import { gramsOf, termLookup, tokensMatch } from "@/lib/library/grams";
import type { Passage } from "@/lib/library/passages";
import { foldForIndex, likePattern, type QueryTerm, RANKED_PASSAGES } from "@/lib/library/query";
import type { LibraryHit } from "@/lib/tools/services";
import type { Db } from "./client";
import type { OwnerId } from "./conversations";
import { ownersFiles } from "./files";
import { lockedForUpdate, skippingLocked } from "./portable-sql";
import { conversations, fileChunks, files, instances } from "./schema";

/**
 * The library index's store (docs/architecture.md, "The library index"): a file's passages written
 * whole or not at all, the files still to index, and ranked search over the passages of the files
 * in a scope, found by the passages' tokens (`lib/library/grams.ts`). SQLite ranks by FTS5's bm25()
 * over its index of the tokens; PostgreSQL by the BM25-style score `substringScore` computes in SQL.
 */

/** SQLite's FTS5 table over `file_chunks.grams`, made by the migration (not part of the schema drizzle-kit sees). */
const chunksGrams = sqliteTable("file_chunks_grams", {
  rowid: integer("rowid").notNull(),
  grams: text("grams").notNull(),
});

/**
 * Replaces the file's passages with `passages` and marks it indexed, in one transaction; nothing
 * when the file was deleted while it was read.
 */
export async function writeFileIndex(db: Db, fileId: string, passages: Passage[]): Promise<void> {
  await db.transaction(async (tx) => {
    const [held] = await lockedForUpdate(tx.select({ id: files.id }).from(files).where(eq(files.id, fileId)));
    if (!held) return;
    await tx.delete(fileChunks).where(eq(fileChunks.fileId, fileId));
    const rows = passages.map((passage, seq) => {
      const folded = foldForIndex(passage.text);
      return {
        fileId,
        seq,
        text: passage.text,
        folded,
        grams: gramsOf(folded),
        start: passage.start,
        pageFirst: passage.page,
        pageLast: passage.page,
      };
    });
    // Within SQLite's limit of bound parameters per statement.
    for (let at = 0; at < rows.length; at += 100) await tx.insert(fileChunks).values(rows.slice(at, at + 100));
    await tx.update(files).set({ indexedAt: Date.now(), indexClaimedBy: null }).where(eq(files.id, fileId));
  });
}

/**
 * Claims for `claimer` (an app instance) up to `limit` files not in the index yet, oldest first,
 * that no other registered instance has claimed (docs/architecture.md, "The library index"): so
 * several instances' start steps share the work instead of each indexing every file. A claim of an
 * instance no longer registered (stopped, or found dead) is free again; the claimer's own claims
 * are not handed to it twice (a file it could not read stays its own until it stops).
 */
export async function claimFilesToIndex(
  db: Db,
  { claimer, limit }: { claimer: string; limit: number },
): Promise<{ id: string; filename: string }[]> {
  const free = and(
    isNull(files.indexedAt),
    or(
      isNull(files.indexClaimedBy),
      and(
        ne(files.indexClaimedBy, claimer),
        notInArray(files.indexClaimedBy, db.select({ id: instances.id }).from(instances)),
      ),
    ),
  );
  // Picked first, then claimed by id: a LIMIT in the UPDATE's own subquery may be read more than once.
  return db.transaction(async (tx) => {
    const picked = await skippingLocked(
      tx.select({ id: files.id }).from(files).where(free).orderBy(asc(files.createdAt), asc(files.id)).limit(limit),
    );
    if (picked.length === 0) return [];
    return tx
      .update(files)
      .set({ indexClaimedBy: claimer })
      .where(
        and(
          inArray(
            files.id,
            picked.map((row) => row.id),
          ),
          free,
        ),
      )
      .returning({ id: files.id, filename: files.filename });
  });
}

export async function countFilesToIndex(db: Db): Promise<number> {
  const [row] = await db.select({ files: count() }).from(files).where(isNull(files.indexedAt));
  return Number(row?.files ?? 0);
}

/**
 * Which files a search reads (docs/architecture.md, "The library index"): a conversation's own and
 * its project's, or — when the chat's `searchAllFiles` setting widens it — every file of the
 * conversation's owner. Never another owner's: the owner and the setting are read from the
 * conversation itself, not taken from the caller.
 */
export type LibraryScope = { conversationId: string } | { ownerId: OwnerId };

export async function scopeCondition(db: Db, scope: LibraryScope): Promise<SQL | undefined> {
  // The sidebar's search: every file of the signed-in owner, conversations' and projects'.
  if ("ownerId" in scope) return ownersFiles(db, scope.ownerId);
  const [conversation] = await db
    .select({ userId: conversations.userId, projectId: conversations.projectId, settings: conversations.settings })
    .from(conversations)
    .where(eq(conversations.id, scope.conversationId))
    .limit(1);
  if (!conversation) return undefined;
  if (conversation.settings.searchAllFiles) return ownersFiles(db, conversation.userId);
  return or(
    eq(files.conversationId, scope.conversationId),
    conversation.projectId ? eq(files.projectId, conversation.projectId) : undefined,
  );
}

/** How many times the term occurs in the passage. */
const occurrences = (term: QueryTerm) =>
  sql`((length(${fileChunks.folded}) - length(replace(${fileChunks.folded}, ${term.text}, ''))) / length(${term.text}))`;

/**
 * BM25's term-frequency saturation and length normalisation (k1 = 1.2, b = 0.75, passages of about
 * 1,200 characters), summed over the terms; no inverse document frequency, which would need a count
 * per term over the scope for every query. Higher is better.
 */
function substringScore(terms: QueryTerm[]): SQL {
  const parts = terms.map(
    (term) =>
      sql`(${occurrences(term)} * 2.2 / (${occurrences(term)} + 1.2 * (0.25 + 0.75 * length(${fileChunks.folded}) / 1200.0)))`,
  );
  return sql.join(parts, sql` + `);
}

/** The term is a substring of the passage (its folded text, so plain LIKE). */
const holds = (term: QueryTerm) => sql`${fileChunks.folded} LIKE ${likePattern(term)} ESCAPE '\\'`;

/**
 * The starts of each word PostgreSQL's `library_word_starts` index holds, by length in characters
 * (drizzle-pg/0011_library_word_starts.sql).
 */
const WORD_STARTS = { shortest: 3, longest: 6 };

/**
 * PostgreSQL: the passage has every term's tokens — exact ones through the GIN index over the
 * tokens, a `word*` through the index of words' starts (a longer start narrowed by its first six
 * characters, a shorter one by nothing) — and a term of several tokens, or a start the index does
 * not hold whole, has them side by side in its `grams`, as SQLite's FTS5 phrase does.
 */
function hasTokens(terms: QueryTerm[]): SQL[] {
  return terms.flatMap((term) => {
    const lookup = termLookup(term.text, term.prefix);
    const start = lookup.prefix ? [...(lookup.tokens.at(-1) ?? "")] : [];
    const exact = [...new Set([...(lookup.prefix ? lookup.tokens.slice(0, -1) : lookup.tokens), ...lookup.anywhere])];
    const conditions: SQL[] = [];
    if (exact.length) {
      const array = sql.join(
        exact.map((token) => sql`${token}`),
        sql`, `,
      );
      conditions.push(sql`string_to_array(${fileChunks.grams}, ' ') @> ARRAY[${array}]::text[]`);
    }
    if (start.length >= WORD_STARTS.shortest) {
      const indexed = start.slice(0, WORD_STARTS.longest).join("");
      conditions.push(sql`library_word_starts(${fileChunks.grams}) @> ARRAY[${indexed}]::text[]`);
    }
    const startHeldWhole = start.length >= WORD_STARTS.shortest && start.length <= WORD_STARTS.longest;
    if (lookup.tokens.length > 1 || (lookup.prefix && !startHeldWhole)) {
      // Tokens are letters, digits and marks only: LIKE reads them as themselves.
      const sequence = lookup.tokens.join(" ");
      conditions.push(sql`(' ' || ${fileChunks.grams} || ' ') LIKE ${`% ${sequence}${lookup.prefix ? "" : " "}%`}`);
    }
    return conditions;
  });
}

export interface LibraryResult {
  hits: LibraryHit[];
  /** More passages match than were ranked: the hits are the best of the newest `RANKED_PASSAGES`. */
  limited: boolean;
}

/**
 * The newest passages of the scope that hold every term, at most `ranked` (+ 1, to tell whether
 * there were more), found by the terms' tokens: SQLite's FTS5 table hands them over newest first,
 * each joined to its file through the index `file_chunks_file_of` rather than the passage's row, so
 * no passage's text is read; PostgreSQL's GIN index narrows, `grams` decides. Only a term with
 * punctuation in it is checked against the text as well, as written.
 */
function newestCandidates(db: Db, terms: QueryTerm[], inScope: SQL, ranked: number) {
  const asWritten = terms.filter((term) => termLookup(term.text, term.prefix).literal).map(holds);
  if (chosenStore() === "postgres") {
    return db
      .select({ id: fileChunks.id, bm25: sql<number>`0`.as("bm25") })
      .from(fileChunks)
      .innerJoin(files, eq(files.id, fileChunks.fileId))
      .where(and(inScope, ...hasTokens(terms), ...asWritten))
      .orderBy(desc(fileChunks.id))
      .limit(ranked + 1)
      .as("candidates");
  }
  return db
    .select({ id: sql<number>`${chunksGrams.rowid}`.as("id"), bm25: sql<number>`-bm25(file_chunks_grams)`.as("bm25") })
    .from(chunksGrams)
    .innerJoin(sql`${fileChunks} INDEXED BY file_chunks_file_of`, eq(fileChunks.id, chunksGrams.rowid))
    .innerJoin(files, eq(files.id, fileChunks.fileId))
    .where(and(sql`file_chunks_grams MATCH ${tokensMatch(terms)}`, inScope, ...asWritten))
    .orderBy(desc(chunksGrams.rowid))
    .limit(ranked + 1)
    .as("candidates");
}

/**
 * The passages of the scope's files that hold every term, best first (SQLite: bm25(); PostgreSQL:
 * `substringScore`), among the newest `ranked` that do (docs/architecture.md, "The library index");
 * `offset` pages on.
 */
export async function searchLibrary(
  db: Db,
  {
    scope,
    terms,
    limit,
    offset,
    ranked = RANKED_PASSAGES,
  }: { scope: LibraryScope; terms: QueryTerm[]; limit: number; offset: number; ranked?: number },
): Promise<LibraryResult> {
  const searched = terms.filter((term) => {
    const lookup = termLookup(term.text, term.prefix);
    return lookup.tokens.length + lookup.anywhere.length > 0;
  });
  if (searched.length === 0) return { hits: [], limited: false };
  const inScope = await scopeCondition(db, scope);
  if (!inScope) return { hits: [], limited: false };
  const candidates = newestCandidates(db, searched, inScope, ranked);
  // The candidates are ranked by id and score alone, so only the page of hits reads its passages'
  // text; `matches` counts every candidate, before the page is cut.
  const sqlite = chosenStore() === "sqlite";
  const scored = db
    .select({
      passage: sql<number>`${candidates.id}`.as("passage"),
      score: sql<number>`${sqlite ? candidates.bm25 : substringScore(searched)}`.as("score"),
      matches: sql<number>`count(*) over ()`.as("matches"),
    })
    .from(candidates)
    .$dynamic();
  const page = (sqlite ? scored : scored.innerJoin(fileChunks, eq(fileChunks.id, candidates.id)))
    .orderBy(sql`score desc, passage`)
    .limit(limit)
    .offset(offset)
    .as("page");
  const rows = await db
    .select({
      fileId: fileChunks.fileId,
      conversationId: files.conversationId,
      projectId: files.projectId,
      filename: files.filename,
      mime: files.mime,
      text: fileChunks.text,
      start: fileChunks.start,
      page: fileChunks.pageFirst,
      score: sql<number>`${page.score}`.mapWith(Number),
      matches: sql<number>`${page.matches}`.mapWith(Number),
    })
    .from(page)
    .innerJoin(fileChunks, eq(fileChunks.id, page.passage))
    .innerJoin(files, eq(files.id, fileChunks.fileId))
    .orderBy(desc(page.score), asc(page.passage));
  return {
    hits: rows.map(({ matches: _, ...hit }) => hit),
    limited: (rows[0]?.matches ?? 0) > ranked,
  };
}

/** Whether the scope holds any file at all (the search tool is pointless without one). */
export async function scopeHasFiles(db: Db, scope: LibraryScope): Promise<boolean> {
  const inScope = await scopeCondition(db, scope);
  if (!inScope) return false;
  const [row] = await db.select({ id: files.id }).from(files).where(inScope).limit(1);
  return Boolean(row);
}

/** Files of the scope not yet indexed: a search waits for them first, so a file just stored is found. */
export async function unindexedInScope(db: Db, scope: LibraryScope): Promise<string[]> {
  const inScope = await scopeCondition(db, scope);
  if (!inScope) return [];
  const rows = await db
    .select({ id: files.id })
    .from(files)
    .where(and(inScope, isNull(files.indexedAt)));
  return rows.map((row) => row.id);
}

/** What indexing a file reads of it. */
export async function readFileForIndex(db: Db, fileId: string) {
  const [row] = await db
    .select({
      filename: files.filename,
      mime: files.mime,
      sha256: files.sha256,
      bytes: files.bytes,
      indexedAt: files.indexedAt,
    })
    .from(files)
    .where(eq(files.id, fileId))
    .limit(1);
  return row;
}

/**
 * A file the conversation's tools may read by `attachment:<id>`: one in its library scope (its own,
 * its project's, or — widened — its owner's), or undefined, whether missing or out of scope.
 */
export async function findFileInScope(db: Db, { conversationId, fileId }: { conversationId: string; fileId: string }) {
  const inScope = await scopeCondition(db, { conversationId });
  if (!inScope) return undefined;
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, fileId), inScope))
    .limit(1);
  return row;
}
