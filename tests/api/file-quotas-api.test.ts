import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { GET as exportOne } from "@/app/api/conversations/[id]/export/route";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { GET as usage } from "@/app/api/files/usage/route";
import { getDb } from "@/lib/db/client";
import { conversations, files, messages } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import type { ConversationExport } from "@/lib/export/format";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { expectApiError, jsonRequest, newConversation, params, setupAppEnv } from "@/tests/support/app-env";
import { makePng } from "@/tests/support/image-fixtures";
import { seedConversation } from "@/tests/support/seed-conversation";

const fake = setupFakeOllama();
setupAppEnv(fake);

const MB = 1024 * 1024;
const PNG = makePng({ width: 1, height: 1 });

function uploadRequest(id: string, bytes: Uint8Array, filename: string): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes)]), filename);
  return upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, { method: "POST", body: form }),
    params({ id }),
  );
}

interface Usage {
  storage: { usedBytes: number; limitBytes: number };
  conversation?: { files: number; limit: number };
}

async function usageOf(conversation?: string): Promise<Usage> {
  const query = conversation ? `?conversation=${conversation}` : "";
  const response = await usage(jsonRequest(`/api/files/usage${query}`, "GET"));
  expect(response.status).toBe(200);
  return (await response.json()) as Usage;
}

function limit(name: "MAX_FILES_PER_CONVERSATION" | "MAX_STORAGE_MB_PER_USER", value: number) {
  process.env[name] = String(value);
  resetConfigForTests();
}

const counts = async () => {
  const db = await getDb();
  return {
    conversations: (await db.select().from(conversations)).length,
    messages: (await db.select().from(messages)).length,
    files: (await db.select().from(files)).length,
  };
};

/** A text file of exactly `size` bytes. */
const text = (size: number) => Buffer.alloc(size, "a");

afterEach(() => {
  delete process.env.MAX_FILES_PER_CONVERSATION;
  delete process.env.MAX_STORAGE_MB_PER_USER;
  resetConfigForTests();
});

describe("file quotas", () => {
  it("takes uploads up to MAX_FILES_PER_CONVERSATION and refuses the next with 409, storing nothing", async () => {
    limit("MAX_FILES_PER_CONVERSATION", 2);
    const id = await newConversation();
    for (const name of ["a.png", "b.png"]) expect((await uploadRequest(id, PNG, name)).status).toBe(201);
    const before = await counts();
    const message = await expectApiError(await uploadRequest(id, PNG, "c.png"), 409, "conflict:conversation_files");
    expect(message).toContain("already holds 2 files");
    expect(await counts()).toEqual(before);
    expect((await usageOf(id)).conversation).toEqual({ files: 2, limit: 2 });
    // The quota is the conversation's: another one takes files.
    expect((await uploadRequest(await newConversation(), PNG, "c.png")).status).toBe(201);
  });

  it("counts two uploads at once one after the other: with room for one, one is stored", async () => {
    const id = await newConversation();
    expect((await uploadRequest(id, PNG, "a.png")).status).toBe(201);
    limit("MAX_FILES_PER_CONVERSATION", 2);
    const statuses = await Promise.all([uploadRequest(id, PNG, "b.png"), uploadRequest(id, PNG, "c.png")]);
    expect(statuses.map((response) => response.status).sort()).toEqual([201, 409]);
    expect((await usageOf(id)).conversation?.files).toBe(2);
  });

  it("takes uploads up to MAX_STORAGE_MB_PER_USER across all the user's conversations, then refuses with 413", async () => {
    limit("MAX_STORAGE_MB_PER_USER", 1);
    const { usedBytes, limitBytes } = (await usageOf()).storage;
    expect(limitBytes).toBe(MB);
    // Exactly the room left fits, in one conversation; one byte more, in another, does not.
    expect((await uploadRequest(await newConversation(), text(limitBytes - usedBytes), "fill.txt")).status).toBe(201);
    expect((await usageOf()).storage.usedBytes).toBe(MB);
    const other = await newConversation();
    const before = await counts();
    const refused = await uploadRequest(other, text(1), "one.txt");
    expect(await expectApiError(refused, 413, "payload_too_large:storage_quota")).toContain("MAX_STORAGE_MB_PER_USER");
    expect(await counts()).toEqual(before);
  });

  it("skips an imported conversation whose files would pass a quota, leaving no trace of it", async () => {
    const { conversationId } = await seedConversation(await getDb());
    const response = await exportOne(
      jsonRequest(`/api/conversations/${conversationId}/export?files=1`, "GET"),
      params({ id: conversationId }),
    );
    const document = (await response.json()) as ConversationExport;
    const importBytes = document.files.reduce((total, file) => total + file.size, 0);
    const importIt = async () => {
      const reply = await importFile(
        new Request("http://127.0.0.1/api/conversations/import", { method: "POST", body: JSON.stringify(document) }),
      );
      expect(reply.status).toBe(200);
      return (await reply.json()) as { imported: unknown[]; skipped: { code: string; reason: string }[] };
    };

    limit("MAX_FILES_PER_CONVERSATION", document.files.length - 1);
    let before = await counts();
    let report = await importIt();
    expect(report.imported).toEqual([]);
    expect(report.skipped).toEqual([expect.objectContaining({ code: "conflict:conversation_files" })]);
    expect(await counts()).toEqual(before);

    delete process.env.MAX_FILES_PER_CONVERSATION;
    limit("MAX_STORAGE_MB_PER_USER", 2);
    const { usedBytes, limitBytes } = (await usageOf()).storage;
    // Room for all but one byte of the import's files.
    const room = limitBytes - usedBytes - importBytes + 1;
    expect((await uploadRequest(await newConversation(), text(room), "fill.txt")).status).toBe(201);
    before = await counts();
    report = await importIt();
    expect(report.imported).toEqual([]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        code: "payload_too_large:storage_quota",
        reason: expect.stringContaining("The conversation was not imported."),
      }),
    ]);
    expect(await counts()).toEqual(before);
  });

  it("reports usage for the user and one conversation; an unknown conversation is a 404", async () => {
    const id = await newConversation();
    expect((await uploadRequest(id, PNG, "a.png")).status).toBe(201);
    const { storage, conversation } = await usageOf(id);
    expect(conversation).toEqual({ files: 1, limit: 200 });
    expect(storage.limitBytes).toBe(2048 * MB);
    const [stored] = await (await getDb()).select().from(files).where(eq(files.conversationId, id));
    expect(storage.usedBytes).toBeGreaterThanOrEqual(stored?.size ?? Number.POSITIVE_INFINITY);
    const missing = await usage(jsonRequest("/api/files/usage?conversation=nope", "GET"));
    await expectApiError(missing, 404, "not_found:conversation");
  });
});
