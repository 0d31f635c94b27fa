import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as upload } from "@/app/api/conversations/[id]/files/route";
import { PATCH as patch } from "@/app/api/conversations/[id]/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { removeAbandonedConversations } from "@/lib/db/conversations";
import { insertMessage } from "@/lib/db/messages";
import { conversations, files } from "@/lib/db/schema";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { params, setupAppEnv } from "@/tests/support/app-env";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice-list", user: "bob-list" });

interface Listed {
  id: string;
  title: string;
  match?: {
    title: { start: number; length: number } | null;
    message: { text: string; start: number; length: number; messageId: string } | null;
  };
}

async function createAs(who: TestClient, title?: string): Promise<string> {
  const response = await create(who.request("/api/conversations", "POST", title ? { title } : {}));
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

async function listAs(who: TestClient, q?: string): Promise<Listed[]> {
  const url = `/api/conversations${q === undefined ? "" : `?q=${encodeURIComponent(q)}`}`;
  const response = await list(who.request(url, "GET"));
  expect(response.status).toBe(200);
  return ((await response.json()) as { conversations: Listed[] }).conversations;
}

async function say(conversationId: string, content: string, role: "user" | "assistant" = "user") {
  return insertMessage(await getDb(), { conversationId, role, content });
}

async function attachAs(who: TestClient, id: string): Promise<void> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(makeTextPdf([["notes"]]))]), "notes.pdf");
  const response = await upload(
    new Request(`http://127.0.0.1/api/conversations/${id}/files`, {
      method: "POST",
      headers: { cookie: who.cookie, origin: "http://127.0.0.1" },
      body: form,
    }),
    params({ id }),
  );
  expect(response.status).toBe(201);
}

const highlighted = (match: { text: string; start: number; length: number }) =>
  match.text.slice(match.start, match.start + match.length);

describe("search results say where they matched", () => {
  it("a message match comes with a one-line snippet around it and the message's id", async () => {
    const id = await createAs(alice, "Trip planning");
    await say(id, "Where should we go?");
    const answer = await say(
      id,
      `${"Some long preamble about many places. ".repeat(4)}The Zephyrine\n\nglacier is worth the walk. ${"More text follows here. ".repeat(6)}`,
      "assistant",
    );
    const [found, ...rest] = await listAs(alice, "zephyrine");
    expect(rest).toEqual([]);
    expect(found?.id).toBe(id);
    expect(found?.match?.title).toBeNull();
    const message = found?.match?.message;
    expect(message?.messageId).toBe(answer.id);
    expect(message && highlighted(message)).toBe("Zephyrine");
    expect(message?.text).not.toContain("\n");
    expect(message?.text.startsWith("…")).toBe(true);
    expect(message?.text.endsWith("…")).toBe(true);
    expect(message?.text.length).toBeLessThan(140);
  });

  it("a title match gives where it is in the title; the first matching message, if any, too", async () => {
    const id = await createAs(alice, "Notes on Quokkas");
    await say(id, "no match here");
    const second = await say(id, "quokkas again, lower case");
    const [found] = await listAs(alice, "QUOKKA");
    expect(found?.id).toBe(id);
    expect(found?.match?.title).toEqual({ start: 9, length: 6 });
    expect(found?.match?.message?.messageId).toBe(second.id);
    expect(found?.match?.message && highlighted(found.match.message)).toBe("quokka");
  });

  it("markup in a message is returned as text to show, never interpreted (the browser escapes it)", async () => {
    const id = await createAs(alice);
    await say(id, 'look: <img src=x onerror="alert(1)"> mallowfen');
    const [found] = await listAs(alice, "mallowfen");
    expect(found?.id).toBe(id);
    expect(found?.match?.message?.text).toBe('look: <img src=x onerror="alert(1)"> mallowfen');
  });

  it("LIKE wildcards in the query are literal, and a snippet never splits an emoji", async () => {
    const id = await createAs(alice);
    await say(id, `${"😀".repeat(30)} 100%_sure ${"😀".repeat(40)}`);
    expect(await listAs(alice, "100%_s")).toHaveLength(1);
    expect(await listAs(alice, "100__s")).toHaveLength(0);
    const [found] = await listAs(alice, "100%_s");
    const text = found?.match?.message?.text ?? "";
    expect(text).not.toMatch(/^…?[\udc00-\udfff]|[\ud800-\udbff]…?$/);
  });

  it("a search finds only the signed-in user's conversations and messages", async () => {
    const mine = await createAs(bob, "Bob's private quillwort");
    await say(mine, "quillwort details");
    const theirs = await createAs(alice, "Alice's");
    await say(theirs, "alice also wrote quillwort");
    expect((await listAs(bob, "quillwort")).map((c) => c.id)).toEqual([mine]);
    expect((await listAs(alice, "quillwort")).map((c) => c.id)).toEqual([theirs]);
  });
});

describe("list order", () => {
  it("renaming a conversation does not move it in the list", async () => {
    const ids: string[] = [];
    for (const [index, text] of ["oldest", "middle", "newest"].entries()) {
      const id = await createAs(bob);
      await say(id, `order ${text}`);
      // Distinct activity times, however fast the machine.
      await (await getDb())
        .update(conversations)
        .set({ updatedAt: Date.now() - 10_000 + index })
        .where(eq(conversations.id, id));
      ids.unshift(id);
    }
    const before = (await listAs(bob, "order")).map((c) => c.id);
    expect(before).toEqual(ids);
    const second = ids[1] ?? "";
    const renamed = await patch(bob.request("", "PATCH", { title: "Renamed, same place" }), params({ id: second }));
    expect(renamed.status).toBe(200);
    expect((await listAs(bob, "order")).map((c) => c.id)).toEqual(ids);
  });
});

describe("new chats left before their first message", () => {
  it("a conversation with files but no message is not listed, nor found, until its first message", async () => {
    const id = await createAs(alice, "Draft with a file");
    await attachAs(alice, id);
    expect((await listAs(alice)).map((c) => c.id)).not.toContain(id);
    expect((await listAs(alice, "Draft with a file")).map((c) => c.id)).not.toContain(id);
    await say(id, "now it starts");
    expect((await listAs(alice)).map((c) => c.id)).toContain(id);
  });

  it("is removed with its files once its last file is older than the limit; others stay", async () => {
    const db = await getDb();
    const abandoned = await createAs(alice);
    await attachAs(alice, abandoned);
    const started = await createAs(alice);
    await attachAs(alice, started);
    await say(started, "a real chat");
    const empty = await createAs(alice, "empty, made through the API");
    const recent = await createAs(alice);
    await attachAs(alice, recent);

    const cutoff = Date.now();
    await db.update(files).set({ createdAt: cutoff - 1 });
    await db.update(files).set({ createdAt: cutoff }).where(eq(files.conversationId, recent));
    expect(await removeAbandonedConversations(db, { before: cutoff })).toBe(1);
    const left = new Set((await db.select().from(files)).map((row) => row.conversationId));
    expect(left.has(abandoned)).toBe(false);
    expect(left.has(started)).toBe(true);
    expect(left.has(recent)).toBe(true);
    const listed = (await listAs(alice)).map((c) => c.id);
    expect(listed).toContain(started);
    expect(listed).toContain(empty);
  });
});
