import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE as deleteConversation, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { GET as listConversations } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { conversations } from "@/lib/db/schema";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, setupAppEnv } from "@/tests/support/app-env";
import { newChat, newProject } from "@/tests/support/owned";

/**
 * A project's own list, `GET /api/conversations?project=<id>` (docs/api.md, "Conversations"): every
 * chat of the project reachable page by page, whatever the list without it has loaded; another
 * user's project is "not found".
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice-pchats", user: "bob-pchats" });

interface Listed {
  id: string;
  projectId: string | null;
  pinned: boolean;
  updatedAt: number;
}

const list = (who: TestClient, query: string) => listConversations(who.request(`/api/conversations?${query}`, "GET"));

async function page(who: TestClient, query: string): Promise<{ conversations: Listed[]; nextCursor: string | null }> {
  const response = await list(who, query);
  expect(response.status).toBe(200);
  return (await response.json()) as { conversations: Listed[]; nextCursor: string | null };
}

/** Every page of the project's list, followed by its cursors. */
async function wholeList(who: TestClient, projectId: string, limit = 30): Promise<Listed[]> {
  const listed: Listed[] = [];
  let cursor: string | null = null;
  do {
    const next = await page(
      who,
      `project=${projectId}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    listed.push(...next.conversations);
    cursor = next.nextCursor;
  } while (cursor);
  return listed;
}

const change = (who: TestClient, id: string, body: Record<string, unknown>) =>
  patchConversation(who.request(`/api/conversations/${id}`, "PATCH", body), params({ id }));

/** Gives each chat its own activity time, the first one oldest. */
async function spreadActivity(ids: string[]): Promise<void> {
  const db = await getDb();
  const start = Date.now() - ids.length * 1000;
  for (const [index, id] of ids.entries()) {
    await db
      .update(conversations)
      .set({ updatedAt: start + index * 1000 })
      .where(eq(conversations.id, id));
  }
}

describe("a project's own list of conversations", () => {
  it("lists every chat of the project and only those, newest activity first, across pages past the first", async () => {
    const projectId = await newProject(alice, "Many chats");
    const inside: string[] = [];
    for (let i = 0; i < 35; i++) inside.push(await newChat(alice, { projectId, title: `inside ${i}` }));
    // Newer than all of them: the list without a project fills its first page with these.
    const outside: string[] = [];
    for (let i = 0; i < 31; i++) outside.push(await newChat(alice, { title: `outside ${i}` }));
    await spreadActivity([...inside, ...outside]);

    const first = await page(alice, `project=${projectId}`);
    expect(first.conversations).toHaveLength(30);
    expect(first.nextCursor).not.toBeNull();
    const all = await wholeList(alice, projectId);
    expect(all.map((c) => c.id)).toEqual([...inside].reverse());
    expect(all.every((c) => c.projectId === projectId)).toBe(true);
    // The list without it has none of them on its first page.
    const unscoped = await page(alice, "");
    expect(unscoped.conversations.some((c) => inside.includes(c.id))).toBe(false);
  });

  it("follows the chat's changes: moved in or out, archived, deleted; a pinned one comes first", async () => {
    const projectId = await newProject(alice, "Changes");
    const [a, b, c] = [await newChat(alice, { projectId }), await newChat(alice, { projectId }), await newChat(alice)];
    await spreadActivity([a, b, c]);
    expect((await wholeList(alice, projectId)).map((x) => x.id)).toEqual([b, a]);

    expect((await change(alice, c, { projectId })).status).toBe(200);
    expect((await change(alice, b, { projectId: null })).status).toBe(200);
    expect((await change(alice, a, { pinned: true })).status).toBe(200);
    expect((await wholeList(alice, projectId)).map((x) => x.id)).toEqual([a, c]);

    expect((await change(alice, c, { archived: true })).status).toBe(200);
    expect((await wholeList(alice, projectId)).map((x) => x.id)).toEqual([a]);
    expect((await page(alice, `project=${projectId}&archived=1`)).conversations.map((x) => x.id)).toEqual([c]);

    const gone = await deleteConversation(alice.request(`/api/conversations/${a}`, "DELETE"), params({ id: a }));
    expect(gone.status).toBe(204);
    expect(await wholeList(alice, projectId)).toEqual([]);
  });

  it("another user's project is not found, like a missing one, even with their own chat planted in it", async () => {
    const projectId = await newProject(alice, "Alice's project");
    const alices = await newChat(alice, { projectId });
    // A chat of bob's pointing at alice's project (the API never allows it; written straight to the store).
    const bobs = await newChat(bob);
    await (await getDb()).update(conversations).set({ projectId }).where(eq(conversations.id, bobs));

    // Bob, with alice's project id: "not found", and nothing of hers or of his listed.
    await expectApiError(await list(bob, `project=${projectId}`), 404, "not_found:project");
    await expectApiError(await list(bob, `project=${projectId}&archived=1`), 404, "not_found:project");
    await expectApiError(await list(bob, "project=no-such-project"), 404, "not_found:project");
    // Alice, with her own project: only her chat, never the one of bob's that claims the project.
    expect((await wholeList(alice, projectId)).map((x) => x.id)).toEqual([alices]);
    // Bob's project id used with alice's session is not found either.
    const bobsProject = await newProject(bob, "Bob's project");
    await newChat(bob, { projectId: bobsProject });
    await expectApiError(await list(alice, `project=${bobsProject}`), 404, "not_found:project");
  });

  it("refuses an empty project id", async () => {
    await expectApiError(await list(alice, "project="), 400, "bad_request:validation");
  });
});
