import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chosenStore } from "@/lib/env-config";
import { cutPassages } from "@/lib/library/passages";
import { parseQuery } from "@/lib/library/query";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import type { Db } from "./client";
import { createConversation, type OwnerId, updateConversation } from "./conversations";
import { insertFile } from "./files";
import {
  claimFilesToIndex,
  findFileInScope,
  scopeHasFiles,
  searchLibrary,
  unindexedInScope,
  writeFileIndex,
} from "./library";
import { conversations, fileChunks, files, instances, projects, users } from "./schema";

/** The library index's store (docs/architecture.md, "The library index"), on SQLite and on PostgreSQL. */

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

async function addUser(id: string) {
  await db.insert(users).values({ id, username: id, passwordHash: "x", role: "user", createdAt: Date.now() });
}

async function addProject(id: string, userId: OwnerId) {
  const now = Date.now();
  await db.insert(projects).values({ id, userId, name: id, createdAt: now, updatedAt: now });
}

/** A text file of the conversation (or, with `projectId`, of the project), indexed. */
async function addFile(
  text: string,
  {
    conversationId,
    projectId,
    filename = "notes.txt",
  }: { conversationId?: string; projectId?: string; filename?: string },
) {
  const bytes = Buffer.from(text);
  const info = await insertFile(db, {
    // A project's file: stored in a conversation first, then handed to the project.
    conversationId: conversationId ?? (await chat()),
    origin: "upload",
    filename,
    mime: "text/plain",
    bytes,
    pageCount: null,
    sourceUrl: null,
  });
  if (projectId) await db.update(files).set({ conversationId: null, projectId }).where(eq(files.id, info.id));
  await writeFileIndex(db, info.id, cutPassages(text));
  return info.id;
}

const search = async (conversationId: string, query: string, limit = 10) =>
  (await searchLibrary(db, { scope: { conversationId }, terms: parseQuery(query), limit, offset: 0 })).hits;

async function chat(ownerId: OwnerId = null) {
  return (await createConversation(db, { ownerId, title: "chat" })).id;
}

describe("the library index", () => {
  it("finds a passage by its words, best match first (more occurrences in a passage rank higher)", async () => {
    const c = await chat();
    const once = await addFile("The harbour opens at dawn. Ships leave later.", {
      conversationId: c,
      filename: "a.txt",
    });
    const often = await addFile("Harbour fees, harbour rules, and the harbour master's office.", {
      conversationId: c,
      filename: "b.txt",
    });
    await addFile("Nothing about ports here.", { conversationId: c, filename: "c.txt" });
    const hits = await search(c, "harbour");
    expect(hits.map((hit) => hit.fileId)).toEqual([often, once]);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
  });

  it("requires every word of the query, in any order", async () => {
    const c = await chat();
    const both = await addFile("Quarterly revenue grew while costs fell.", { conversationId: c });
    await addFile("Quarterly meeting notes.", { conversationId: c });
    expect((await search(c, "revenue quarterly")).map((hit) => hit.fileId)).toEqual([both]);
  });

  it('matches a "quoted phrase" only as written, and word* as a prefix', async () => {
    const c = await chat();
    const phrase = await addFile("The red fox sleeps.", { conversationId: c });
    await addFile("The fox is red and sleeps.", { conversationId: c });
    expect((await search(c, '"red fox"')).map((hit) => hit.fileId)).toEqual([phrase]);
    const prefix = await addFile("Internationalisation is hard.", { conversationId: c });
    expect((await search(c, "internation*")).map((hit) => hit.fileId)).toEqual([prefix]);
  });

  it("finds Japanese without a word segmenter, two-character words included", async () => {
    const c = await chat();
    const tokyo = await addFile("東京都の天気は晴れのち曇り。気温は十五度です。", { conversationId: c });
    await addFile("大阪の天気は雨。", { conversationId: c });
    expect((await search(c, "晴れのち")).map((hit) => hit.fileId)).toEqual([tokyo]);
    expect((await search(c, "東京")).map((hit) => hit.fileId)).toEqual([tokyo]);
    expect((await search(c, "天気 東京")).map((hit) => hit.fileId)).toEqual([tokyo]);
  });

  it('finds a "phrase" as its words whole, side by side and in order, whatever punctuation is between them', async () => {
    const c = await chat();
    const comma = await addFile("It was red, fox-coloured.", { conversationId: c });
    await addFile("The red foxes ran; a fox, red-eyed.", { conversationId: c });
    expect((await search(c, '"red fox"')).map((hit) => hit.fileId)).toEqual([comma]);
  });

  it('finds a "phrase" typed with punctuation only as written', async () => {
    const c = await chat();
    const written = await addFile("Runs on node.js 20.", { conversationId: c });
    await addFile("Runs on node js 20.", { conversationId: c });
    expect((await search(c, '"node.js 20"')).map((hit) => hit.fileId)).toEqual([written]);
  });

  it("finds a longer Japanese term only where it stands whole, not where its pairs are apart", async () => {
    const c = await chat();
    const whole = await addFile("東京都の人口。", { conversationId: c });
    await addFile("東京と京都を旅した。", { conversationId: c });
    expect((await search(c, "東京都")).map((hit) => hit.fileId)).toEqual([whole]);
  });

  it("finds a one-character Japanese term through the short-term index, alone and beside other terms", async () => {
    const c = await chat();
    const rain = await addFile("大阪の天気は雨。", { conversationId: c });
    await addFile("東京は晴れ。", { conversationId: c });
    expect((await search(c, "雨")).map((hit) => hit.fileId)).toEqual([rain]);
    expect((await search(c, "雨 天気は")).map((hit) => hit.fileId)).toEqual([rain]);
  });

  it("matches a word as a whole word, never inside another, and word* where it starts one", async () => {
    const c = await chat();
    const version = await addFile("PostgreSQL 16 is out.", { conversationId: c, filename: "v.txt" });
    const rows = await addFile("It holds 1600 rows.", { conversationId: c, filename: "rows.txt" });
    await addFile("Released in 2016, as a portal.", { conversationId: c, filename: "year.txt" });
    expect((await search(c, "16")).map((hit) => hit.fileId)).toEqual([version]);
    expect((await search(c, "16*")).map((hit) => hit.fileId).sort()).toEqual([version, rows].sort());
    expect(await search(c, "orta")).toEqual([]);
    expect(await search(c, "released 16")).toEqual([]);
  });

  it("finds word* by a start of any length, only where a word starts with it", async () => {
    const c = await chat();
    const long = await addFile("Internationalisation matters.", { conversationId: c, filename: "long.txt" });
    const short = await addFile("An intern arrived, then interns.", { conversationId: c, filename: "short.txt" });
    await addFile("A winter by the mountains.", { conversationId: c, filename: "winter.txt" });
    const interval = await addFile("An interval passed.", { conversationId: c, filename: "interval.txt" });
    const found = async (query: string) => (await search(c, query)).map((hit) => hit.fileId).sort();
    for (const start of ["in*", "int*", "inte*", "inter*"]) {
      expect(await found(start), start).toEqual([long, short, interval].sort());
    }
    expect(await found("intern*")).toEqual([long, short].sort());
    // Longer than the starts PostgreSQL's index holds (six characters): narrowed by them, then checked.
    expect(await found("internat*")).toEqual([long]);
    expect(await found("internationalisation*")).toEqual([long]);
    expect(await found("interns*")).toEqual([short]);
    expect(await found("nter*")).toEqual([]);
    expect(await found("i*")).toEqual([long, short, interval].sort());
  });

  it("finds a word written without its diacritics on SQLite", async () => {
    if (chosenStore() !== "sqlite") return;
    const c = await chat();
    const id = await addFile("Un café crème, s'il vous plaît.", { conversationId: c });
    expect((await search(c, "cafe creme")).map((hit) => hit.fileId)).toEqual([id]);
  });

  it("ranks at most the newest matching passages and says when more match", async () => {
    const c = await chat();
    const best = await addFile("lighthouse lighthouse lighthouse keeper", { conversationId: c });
    const newer = [];
    for (let i = 0; i < 3; i++) newer.push(await addFile(`a lighthouse, number ${i}, far out`, { conversationId: c }));
    const some = await searchLibrary(db, {
      scope: { conversationId: c },
      terms: parseQuery("lighthouse"),
      limit: 10,
      offset: 0,
      ranked: 2,
    });
    expect(some.limited).toBe(true);
    expect(some.hits.map((hit) => hit.fileId)).not.toContain(best);
    expect(some.hits.map((hit) => hit.fileId)).toEqual(expect.arrayContaining(newer.slice(1)));
    const all = await searchLibrary(db, {
      scope: { conversationId: c },
      terms: parseQuery("lighthouse"),
      limit: 10,
      offset: 0,
      ranked: 4,
    });
    expect(all.limited).toBe(false);
    expect(all.hits[0]?.fileId).toBe(best);
  });

  it.each([
    ["a trigram term", "heron"],
    ["a short term", "雨"],
  ])("counts only the scope's passages against the ranked number (%s)", async (_, word) => {
    const mine = await chat();
    const other = await chat();
    const own = await addFile(`my ${word} note`, { conversationId: mine });
    for (let i = 0; i < 4; i++) await addFile(`their ${word} note ${i}`, { conversationId: other });
    const result = await searchLibrary(db, {
      scope: { conversationId: mine },
      terms: parseQuery(word),
      limit: 10,
      offset: 0,
      ranked: 2,
    });
    expect(result).toEqual({ hits: [expect.objectContaining({ fileId: own })], limited: false });
  });

  it("matches full-width and half-width forms and any letter case alike", async () => {
    const c = await chat();
    const id = await addFile("ＰｏｓｔｇｒｅＳＱＬ １６ supports it.", { conversationId: c });
    expect((await search(c, "postgresql 16")).map((hit) => hit.fileId)).toEqual([id]);
    const latin = await addFile("PostgreSQL Sixteen", { conversationId: c });
    expect((await search(c, "ｐｏｓｔｇｒｅｓｑｌ ｓｉｘｔｅｅｎ")).map((hit) => hit.fileId)).toEqual([latin]);
  });

  it.each([
    ['an unbalanced "quote', 'unbalanced "quote'],
    ["NEAR(", "NEAR(a b"],
    ["a lone *", "*"],
    ["a column filter", "text:secret"],
    ["operators", "a OR b NOT c"],
    ["^", "^start"],
    ["SQL", "'; DROP TABLE files; --"],
    ["LIKE wildcards", "%_\\"],
    ["a 5,000-character word", "x".repeat(5000)],
  ])("a hostile query (%s) is read as plain words and never fails", async (_, query) => {
    const c = await chat();
    await addFile("plain text about secret things near a b c", { conversationId: c });
    await expect(search(c, query)).resolves.toBeInstanceOf(Array);
  });

  it("a LIKE wildcard in the query matches only itself", async () => {
    const c = await chat();
    await addFile("100 percent", { conversationId: c });
    const literal = await addFile("a 100% discount", { conversationId: c });
    expect((await search(c, '"100%"')).map((hit) => hit.fileId)).toEqual([literal]);
  });

  it("pages on: offset skips the passages already returned", async () => {
    const c = await chat();
    for (let i = 0; i < 5; i++) await addFile(`lighthouse number ${i}`, { conversationId: c });
    const all = await search(c, "lighthouse", 10);
    const second = await searchLibrary(db, {
      scope: { conversationId: c },
      terms: parseQuery("lighthouse"),
      limit: 2,
      offset: 2,
    });
    expect(second.hits.map((hit) => hit.fileId)).toEqual(all.slice(2, 4).map((hit) => hit.fileId));
  });

  it("removes a file's passages with the file, from the full-text index too", async () => {
    const c = await chat();
    const id = await addFile("ephemeral walrus", { conversationId: c });
    expect(await search(c, "walrus")).toHaveLength(1);
    await db.delete(files).where(eq(files.id, id));
    expect(await db.select().from(fileChunks).where(eq(fileChunks.fileId, id))).toEqual([]);
    expect(await search(c, "walrus")).toEqual([]);
    if (chosenStore() === "sqlite") {
      const grams = await db
        .select({ n: sql<number>`count(*)` })
        .from(sql`file_chunks_grams`)
        .where(sql`file_chunks_grams MATCH ${'"walrus"'}`);
      expect(Number(grams[0]?.n)).toBe(0);
    }
  });

  it("indexing a file again replaces its passages instead of adding to them", async () => {
    const c = await chat();
    const id = await addFile("first version with kestrel", { conversationId: c });
    await writeFileIndex(db, id, cutPassages("second version with kestrel"));
    const hits = await search(c, "kestrel");
    expect(hits.map((hit) => hit.text)).toEqual(["second version with kestrel"]);
  });

  it("the index of a file deleted while it was read is not written, and no error is thrown", async () => {
    const c = await chat();
    const id = await addFile("short-lived heron", { conversationId: c });
    await db.delete(files).where(eq(files.id, id));
    await writeFileIndex(db, id, cutPassages("short-lived heron"));
    expect(await db.select().from(fileChunks).where(eq(fileChunks.fileId, id))).toEqual([]);
  });

  it("a file not indexed yet is listed for the search to index first", async () => {
    const c = await chat();
    const info = await insertFile(db, {
      conversationId: c,
      origin: "upload",
      filename: "new.txt",
      mime: "text/plain",
      bytes: Buffer.from("fresh"),
      pageCount: null,
      sourceUrl: null,
    });
    expect(await unindexedInScope(db, { conversationId: c })).toEqual([info.id]);
    await writeFileIndex(db, info.id, cutPassages("fresh"));
    expect(await unindexedInScope(db, { conversationId: c })).toEqual([]);
  });
});

describe("the library scope (adversarial)", () => {
  it("never finds another conversation's file, nor reads it by id", async () => {
    const mine = await chat();
    const other = await chat();
    const theirs = await addFile("confidential albatross", { conversationId: other });
    expect(await search(mine, "albatross")).toEqual([]);
    expect(await findFileInScope(db, { conversationId: mine, fileId: theirs })).toBeUndefined();
    expect(await scopeHasFiles(db, { conversationId: mine })).toBe(false);
  });

  it("finds and reads the files of the conversation's project, not of another project", async () => {
    await addProject("p1", null);
    await addProject("p2", null);
    const inP1 = await chat();
    await db.update(conversations).set({ projectId: "p1" }).where(eq(conversations.id, inP1));
    const ours = await addFile("project pelican", { projectId: "p1" });
    const foreign = await addFile("project pelican elsewhere", { projectId: "p2" });
    expect((await search(inP1, "pelican")).map((hit) => hit.fileId)).toEqual([ours]);
    expect(await findFileInScope(db, { conversationId: inP1, fileId: ours })).toMatchObject({ id: ours });
    expect(await findFileInScope(db, { conversationId: inP1, fileId: foreign })).toBeUndefined();
  });

  it("a conversation moved out of its project no longer reads the project's files", async () => {
    await addProject("p1", null);
    const c = await chat();
    await db.update(conversations).set({ projectId: "p1" }).where(eq(conversations.id, c));
    const file = await addFile("moving heron", { projectId: "p1" });
    expect(await search(c, "heron")).toHaveLength(1);
    await db.update(conversations).set({ projectId: null }).where(eq(conversations.id, c));
    expect(await search(c, "heron")).toEqual([]);
    expect(await findFileInScope(db, { conversationId: c, fileId: file })).toBeUndefined();
  });

  it("widened to all files, a chat finds its owner's other files and projects — never another user's", async () => {
    await addUser("alice");
    await addUser("bob");
    await addProject("alice-project", "alice");
    await addProject("bob-project", "bob");
    const aliceChat = await chat("alice");
    const aliceOther = await chat("alice");
    const bobChat = await chat("bob");
    const own = await addFile("shared osprey notes", { conversationId: aliceOther });
    const ownProject = await addFile("osprey in a project", { projectId: "alice-project" });
    const bobs = await addFile("bob's osprey", { conversationId: bobChat });
    const bobsProject = await addFile("bob's project osprey", { projectId: "bob-project" });
    expect(await search(aliceChat, "osprey")).toEqual([]);
    await updateConversation(db, { id: aliceChat, ownerId: "alice", settings: { searchAllFiles: true } });
    expect((await search(aliceChat, "osprey")).map((hit) => hit.fileId).sort()).toEqual([own, ownProject].sort());
    expect(await findFileInScope(db, { conversationId: aliceChat, fileId: own })).toMatchObject({ id: own });
    for (const fileId of [bobs, bobsProject]) {
      expect(await findFileInScope(db, { conversationId: aliceChat, fileId })).toBeUndefined();
    }
  });

  it("widened in single-user mode, a chat never reaches an account's files", async () => {
    await addUser("carol");
    const local = await chat(null);
    const carols = await chat("carol");
    const hidden = await addFile("carol's cormorant", { conversationId: carols });
    await updateConversation(db, { id: local, ownerId: null, settings: { searchAllFiles: true } });
    expect(await search(local, "cormorant")).toEqual([]);
    expect(await findFileInScope(db, { conversationId: local, fileId: hidden })).toBeUndefined();
  });
});

describe("claiming files to index (several instances' start steps)", () => {
  async function storeUnindexed(count: number) {
    const c = await chat();
    const ids: string[] = [];
    for (let at = 0; at < count; at++) {
      const info = await insertFile(db, {
        conversationId: c,
        origin: "upload",
        filename: `f${at}.txt`,
        mime: "text/plain",
        bytes: Buffer.from(`file ${at}`),
        pageCount: null,
        sourceUrl: null,
      });
      ids.push(info.id);
    }
    return ids;
  }
  const register = (id: string) => db.insert(instances).values({ id, startedAt: Date.now(), seenAt: Date.now() });
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();

  it("gives instances claiming at once each their own files, every file to one of them", async () => {
    const stored = await storeUnindexed(6);
    await register("a");
    await register("b");
    const [a, b] = await Promise.all([
      claimFilesToIndex(db, { claimer: "a", limit: 3 }),
      claimFilesToIndex(db, { claimer: "b", limit: 3 }),
    ]);
    const more = await claimFilesToIndex(db, { claimer: "b", limit: 6 });
    const all = [...ids(a ?? []), ...ids(b ?? []), ...ids(more)];
    expect(all.sort()).toEqual([...stored].sort());
    expect(new Set(all).size).toBe(6);
  });

  it("leaves a registered instance's claims alone, and frees those of an instance no longer registered", async () => {
    const stored = await storeUnindexed(2);
    await register("alive");
    expect(ids(await claimFilesToIndex(db, { claimer: "alive", limit: 1 }))).toHaveLength(1);
    expect(ids(await claimFilesToIndex(db, { claimer: "gone", limit: 1 }))).toHaveLength(1);
    // "gone" never registered (SQLite's single instance, or one found dead): its claim is free again.
    const next = await claimFilesToIndex(db, { claimer: "other", limit: 5 });
    expect(next).toHaveLength(1);
    expect(stored).toContain(next[0]?.id);
    expect(await claimFilesToIndex(db, { claimer: "other", limit: 5 })).toEqual([]);
  });

  it("never hands a claimer its own claims twice, nor an indexed file to anyone", async () => {
    const [first, second] = await storeUnindexed(2);
    await writeFileIndex(db, first as string, cutPassages("file 0"));
    expect(ids(await claimFilesToIndex(db, { claimer: "a", limit: 5 }))).toEqual([second]);
    expect(await claimFilesToIndex(db, { claimer: "a", limit: 5 })).toEqual([]);
  });

  it("clears the claim once the file is indexed", async () => {
    const [file] = await storeUnindexed(1);
    await claimFilesToIndex(db, { claimer: "a", limit: 1 });
    await writeFileIndex(db, file as string, cutPassages("file 0"));
    const [row] = await db
      .select({ claimedBy: files.indexClaimedBy })
      .from(files)
      .where(eq(files.id, file as string));
    expect(row).toEqual({ claimedBy: null });
  });
});
