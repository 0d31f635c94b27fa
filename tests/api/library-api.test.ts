import { describe, expect, it, vi } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { getDb } from "@/lib/db/client";
import { insertFile } from "@/lib/db/files";
import { claimFilesToIndex, countFilesToIndex, searchLibrary } from "@/lib/db/library";
import { instances } from "@/lib/db/schema";
import { getConfig } from "@/lib/env-config";
import { indexStoredFiles } from "@/lib/library/indexer";
import { parseQuery } from "@/lib/library/query";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, newConversation, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";

/**
 * The library through the app (docs/architecture.md, "The library index"): files are indexed when
 * stored and at start, and `search_files` is offered to the model only when the chat has files.
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

function uploadFile(id: string, bytes: Uint8Array, filename: string): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), filename);
  return upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, { method: "POST", body: form }),
    params({ id }),
  );
}

async function runChat(conversationId: string, message: string) {
  const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  return events;
}

/** The tools offered in the tool loop's requests of this test, by name. */
const offeredTools = () =>
  fake()
    .chatRequests()
    .flatMap((request) => (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name));

const report = makeTextPdf([
  ["Annual report, introduction."],
  ["Revenue by region."],
  ["The Osaka plant doubled its output of solar panels."],
]);

describe("the library in a chat", () => {
  it("indexes an uploaded file when it is stored", async () => {
    const id = await newConversation();
    const response = await uploadFile(id, report, "report.pdf");
    expect(response.status).toBe(201);
    const db = await getDb();
    await vi.waitFor(
      async () => {
        const { hits } = await searchLibrary(db, {
          scope: { conversationId: id },
          terms: parseQuery("solar panels"),
          limit: 5,
          offset: 0,
        });
        expect(hits.map((hit) => hit.page)).toEqual([3]);
      },
      { timeout: 10_000 },
    );
  });

  it("offers search_files only to a chat with files; the model gets the page and a token to read on from", async () => {
    const empty = await newConversation();
    fake().script({ when: { hasTools: true }, content: "Nothing to search." });
    await runChat(empty, "hello");
    expect(offeredTools()).toContain("pdf_to_text");
    expect(offeredTools()).not.toContain("search_files");
    fake().requests.length = 0;

    const id = await newConversation();
    const file = (await (await uploadFile(id, report, "report.pdf")).json()) as { id: string };
    fake().script(
      { when: { hasTools: true }, toolCalls: [{ name: "search_files", arguments: { query: "solar" }, id: "s1" }] },
      { when: { hasTools: true }, content: "The Osaka plant doubled its output." },
      { when: { hasTools: false, stream: true }, chunks: ["The Osaka plant ", "doubled its output."] },
    );
    const events = await runChat(id, "What happened to solar output?");
    expect(offeredTools()).toContain("search_files");
    const result = events.find((e) => e.event === "step" && e.data.type === "tool_result")?.data;
    expect(result).toMatchObject({ tool: "search_files", ok: true });
    expect(String(result?.observation)).toContain(`report.pdf (attachment:${file.id}, page 3)`);
    expect(String(result?.observation)).toMatch(/continue_from="[^"]+"/);
  });
});

describe("the start step", () => {
  it("indexes every stored file not indexed yet and says so in the log", async () => {
    const db = await getDb();
    const id = await newConversation();
    for (const name of ["a", "b", "c"]) {
      await insertFile(db, {
        conversationId: id,
        origin: "upload",
        filename: `${name}.txt`,
        mime: "text/plain",
        bytes: Buffer.from(`file ${name} mentions the word kingfisher`),
        pageCount: null,
        sourceUrl: null,
      });
    }
    expect(await countFilesToIndex(db)).toBeGreaterThanOrEqual(3);
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      await indexStoredFiles(db, getConfig(), "instance-a");
    } finally {
      log.mockRestore();
    }
    expect(lines).toContainEqual(expect.stringMatching(/^\[library\] indexed \d+ file\(s\), 0 left/));
    expect(await countFilesToIndex(db)).toBe(0);
    const { hits } = await searchLibrary(db, {
      scope: { conversationId: id },
      terms: parseQuery("kingfisher"),
      limit: 10,
      offset: 0,
    });
    expect(hits).toHaveLength(3);
  });

  it("leaves the files another registered instance claimed to it, and says so", async () => {
    const db = await getDb();
    const id = await newConversation();
    await indexStoredFiles(db, getConfig(), "instance-a");
    for (const name of ["mine", "theirs"]) {
      await insertFile(db, {
        conversationId: id,
        origin: "upload",
        filename: `${name}.txt`,
        mime: "text/plain",
        bytes: Buffer.from(`${name} heron`),
        pageCount: null,
        sourceUrl: null,
      });
    }
    await db.insert(instances).values({ id: "instance-b", startedAt: Date.now(), seenAt: Date.now() });
    const [claimed] = await claimFilesToIndex(db, { claimer: "instance-b", limit: 1 });
    const warnings: string[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warnings.push(String(line)));
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      await indexStoredFiles(db, getConfig(), "instance-a");
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
    expect(await countFilesToIndex(db)).toBe(1);
    expect(warnings).toContainEqual(
      expect.stringMatching(/1 file\(s\) not indexed: .*another instance is indexing them/),
    );
    const { hits } = await searchLibrary(db, {
      scope: { conversationId: id },
      terms: parseQuery("heron"),
      limit: 10,
      offset: 0,
    });
    expect(hits.map((hit) => hit.filename)).toEqual([claimed?.filename === "mine.txt" ? "theirs.txt" : "mine.txt"]);
  });
});
