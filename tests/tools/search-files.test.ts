import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { insertFile } from "@/lib/db/files";
import { RANKED_PASSAGES } from "@/lib/library/query";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { createSearchFiles } from "@/lib/tools/builtin/search-files";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { setupToolEnv } from "@/tests/support/tool-env";

/**
 * `search_files` (docs/tools.md) over real stored files: it indexes what is not indexed yet, ranks
 * passages, names the file and page, and hands a token with which `pdf_to_text` reads on from there.
 */

const env = setupToolEnv();

function attach(
  bytes: Uint8Array | Buffer,
  {
    filename,
    mime,
    conversationId = env.conversationId,
  }: {
    filename: string;
    mime: string;
    conversationId?: string;
  },
) {
  return insertFile(env.db(), {
    conversationId,
    origin: "upload",
    filename,
    mime,
    bytes: Buffer.from(bytes),
    pageCount: null,
    sourceUrl: null,
  });
}

const search = (args: Record<string, unknown>, conversationId = env.conversationId) =>
  env.run(
    "search_files",
    args,
    { conversationId },
    createBuiltinRegistry(env.services).register(createSearchFiles(env.services)),
  );

/** The continuation token of the result's `n`th passage (1-based). */
function tokenOf(output: string, n = 1): string {
  const tokens = [...output.matchAll(/continue_from="([^"]+)"/g)].map((match) => match[1] ?? "");
  const token = tokens[n - 1];
  if (!token) throw new Error(`no token ${n} in: ${output}`);
  return token;
}

const pages = [
  ["Chapter one is about gardens."],
  ["Chapter two is about rivers."],
  ["Chapter three describes the zeppelin hangar at Friedrichshafen."],
  ["Chapter four is about bridges."],
];

describe("search_files", () => {
  it("finds the PDF page a word is on, and its token makes pdf_to_text read from that page", async () => {
    const file = await attach(makeTextPdf(pages), { filename: "book.pdf", mime: "application/pdf" });
    const output = await search({ query: "zeppelin" });
    expect(output).toContain(`[1] book.pdf (attachment:${file.id}, page 3)`);
    // The excerpt is the file's own text, its case kept.
    expect(output).toContain("the zeppelin hangar at Friedrichshafen");
    const read = await env.run("pdf_to_text", { continue_from: tokenOf(output) });
    expect(read.startsWith("Chapter three describes the zeppelin hangar")).toBe(true);
    expect(read).not.toContain("Chapter two");
  });

  it("finds words in a vertical Japanese PDF (a real producer's), by two-character words too", async () => {
    const bytes = fs.readFileSync("tests/fixtures/pdf/ja-vertical.pdf");
    const file = await attach(bytes, { filename: "rashomon.pdf", mime: "application/pdf" });
    for (const query of ["羅生門", "下人", "雨やみ"]) {
      const output = await search({ query });
      expect(output, query).toContain(`rashomon.pdf (attachment:${file.id}, page 1)`);
    }
  });

  it("reads a text file on from the passage's position", async () => {
    const filler = "Nothing to see in this line.\n".repeat(200);
    const text = `${filler}\nThe vault combination is kept by the night porter.\n${filler}`;
    await attach(Buffer.from(text), { filename: "notes.txt", mime: "text/plain" });
    const output = await search({ query: '"night porter"' });
    expect(output).toMatch(/notes\.txt \(attachment:[^,]+, character \d+\)/);
    const read = await env.run("pdf_to_text", { continue_from: tokenOf(output) });
    expect(read).toContain("The vault combination is kept by the night porter.");
    expect(read.indexOf("night porter")).toBeLessThan(2000);
  });

  it("ranks the passage that says it most first and pages through the rest", async () => {
    // Passages of the same length: the one that says it most ranks first.
    const texts = {
      "once.txt": "lighthouse field river stone cloud",
      "twice.txt": "lighthouse field lighthouse stone cloud",
      "often.txt": "lighthouse lighthouse lighthouse stone cloud",
    };
    for (const [filename, text] of Object.entries(texts)) {
      await attach(Buffer.from(text), { filename, mime: "text/plain" });
    }
    const first = await search({ query: "lighthouse", limit: 2 });
    expect(first.indexOf("often.txt")).toBeLessThan(first.indexOf("twice.txt"));
    expect(first).not.toContain("once.txt");
    expect(first).toContain("page=2");
    const second = await search({ query: "lighthouse", limit: 2, page: 2 });
    expect(second).toContain("[3] once.txt");
    expect(second).not.toContain("page=3");
  });

  it("never returns another conversation's file, and its id in a token does not read it", async () => {
    const theirs = await attach(makeTextPdf(pages), {
      filename: "theirs.pdf",
      mime: "application/pdf",
      conversationId: env.otherConversationId,
    });
    const output = await search({ query: "zeppelin" });
    expect(output).toContain("No passage of the files in this conversation");
    // The other conversation's own search finds it, and its token is refused in this conversation.
    const theirOutput = await search({ query: "zeppelin" }, env.otherConversationId);
    expect(theirOutput).toContain(theirs.id);
    const refused = await env.run("pdf_to_text", { continue_from: tokenOf(theirOutput) });
    expect(refused).toContain("Attachment not found");
  });

  it("says when more passages match than a search ranks, and how to narrow it", async () => {
    const hit = {
      fileId: "f1",
      conversationId: env.conversationId,
      projectId: null,
      filename: "log.txt",
      mime: "text/plain",
      text: "the error again",
      start: 0,
      page: null,
      score: 1,
    };
    const run = (limited: boolean) => {
      const services = {
        ...env.services,
        library: { search: async () => ({ hits: [hit], terms: ["error"], limited }) },
      };
      const tools = createBuiltinRegistry(services).register(createSearchFiles(services));
      return env.run("search_files", { query: "error" }, { conversationId: env.conversationId }, tools);
    };
    expect(await run(true)).toContain(`the best of the newest ${RANKED_PASSAGES}. Add words or use a "quoted phrase"`);
    expect(await run(false)).not.toContain("the best of the newest");
  });

  it("an empty query, or one of punctuation only, is a clear error", async () => {
    await attach(Buffer.from("text"), { filename: "a.txt", mime: "text/plain" });
    expect(await search({ query: "   " })).toContain("query is empty");
    expect(await search({ query: "!!! ???" })).toContain("no letters or digits");
  });

  it("a file that cannot be read is left out and the search still answers", async () => {
    await attach(Buffer.from("%PDF-1.4 broken"), { filename: "broken.pdf", mime: "application/pdf" });
    await attach(Buffer.from("the albatross is here"), { filename: "fine.txt", mime: "text/plain" });
    const output = await search({ query: "albatross" });
    expect(output).toContain("fine.txt");
    expect(output).not.toContain("broken.pdf");
  });
});
