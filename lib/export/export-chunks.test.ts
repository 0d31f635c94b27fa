import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db/client";
import { readConversationRows } from "@/lib/db/conversation-transfer";
import { createConversation } from "@/lib/db/conversations";
import { insertFile } from "@/lib/db/files";
import { insertMessage } from "@/lib/db/messages";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { exportChunks, exportConversation } from "./export-conversation";

// fileBytes is watched, not replaced: every read still goes to the database.
const reads = vi.hoisted(() => ({ ids: [] as string[] }));
vi.mock("@/lib/db/conversation-transfer", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/db/conversation-transfer")>();
  return {
    ...actual,
    fileBytes: async (db: Db, fileId: string) => {
      reads.ids.push(fileId);
      return actual.fileBytes(db, fileId);
    },
  };
});

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

beforeEach(() => {
  reads.ids.length = 0;
});

/** A conversation with three files of distinct bytes. */
async function conversationWithFiles() {
  const conversation = await createConversation(db, { title: "t", model: "m", ownerId: null });
  await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
  const files = [];
  for (const name of ["a", "b", "c"]) {
    files.push(
      await insertFile(db, {
        conversationId: conversation.id,
        origin: "upload",
        filename: `${name}.txt`,
        mime: "text/plain",
        bytes: Buffer.from(name.repeat(3000)),
        pageCount: null,
        sourceUrl: null,
      }),
    );
  }
  return { conversation, files };
}

describe("an export reads its files' content one file at a time", () => {
  it("reads no file's content for the document, nor for an export without files", async () => {
    const { conversation } = await conversationWithFiles();
    const rows = await readConversationRows(db, { id: conversation.id, ownerId: null });
    expect(rows.files.every((file) => !("bytes" in file))).toBe(true);
    const document = await exportConversation(db, { id: conversation.id, ownerId: null });
    let text = "";
    for await (const chunk of exportChunks(db, document, { withFiles: false })) text += chunk;
    expect(reads.ids).toEqual([]);
    expect(JSON.parse(text).files).toHaveLength(3);
  });

  it("with files, reads each file's content only when its turn in the stream comes", async () => {
    const { conversation, files } = await conversationWithFiles();
    const document = await exportConversation(db, { id: conversation.id, ownerId: null });
    const readsBefore: number[] = [];
    let text = "";
    for await (const chunk of exportChunks(db, document, { withFiles: true })) {
      const index = files.findIndex(
        (file) => chunk === Buffer.from(file.filename.charAt(0).repeat(3000)).toString("base64"),
      );
      if (index !== -1) readsBefore.push(reads.ids.length);
      text += chunk;
    }
    // When file k's content goes out, exactly k + 1 files have been read: none ahead of its turn.
    expect(readsBefore).toEqual([1, 2, 3]);
    expect(reads.ids).toEqual(files.map((file) => file.id));
    const exported = JSON.parse(text).files as { bytes: string }[];
    expect(exported.map((file) => Buffer.from(file.bytes, "base64").toString().slice(0, 3))).toEqual([
      "aaa",
      "bbb",
      "ccc",
    ]);
  });
});
