import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne, PATCH as patch } from "@/app/api/conversations/[id]/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { insertMessage } from "@/lib/db/messages";
import { conversations } from "@/lib/db/schema";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, signUp, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice-pin", user: "bob-pin", openSignup: true });

interface Listed {
  id: string;
  title: string;
  pinned: boolean;
  archived: boolean;
}

/** A conversation with one message, its last activity at `at`. */
async function started(who: TestClient, title: string, at: number): Promise<string> {
  const response = await create(who.request("/api/conversations", "POST", { title }));
  const { id } = ((await response.json()) as { conversation: { id: string } }).conversation;
  await insertMessage(await getDb(), { conversationId: id, role: "user", content: `about ${title}` });
  await (await getDb()).update(conversations).set({ updatedAt: at }).where(eq(conversations.id, id));
  return id;
}

/** The conversation as stored, whoever owns it. */
async function stored(id: string) {
  const [row] = await (await getDb()).select().from(conversations).where(eq(conversations.id, id));
  if (!row) throw new Error(`no conversation ${id}`);
  return row;
}

const patchAs = (who: TestClient, id: string, body: unknown) =>
  patch(who.request(`/api/conversations/${id}`, "PATCH", body), params({ id }));

async function page(who: TestClient, query: string): Promise<{ conversations: Listed[]; nextCursor: string | null }> {
  const response = await list(who.request(`/api/conversations?${query}`, "GET"));
  expect(response.status).toBe(200);
  return (await response.json()) as { conversations: Listed[]; nextCursor: string | null };
}

/** Every page of the list, following `nextCursor`. */
async function allPages(who: TestClient, query: string): Promise<string[]> {
  const titles: string[] = [];
  let cursor: string | null = null;
  do {
    const next = await page(who, `${query}${cursor ? `&cursor=${cursor}` : ""}`);
    titles.push(...next.conversations.map((c) => c.title));
    cursor = next.nextCursor;
  } while (cursor);
  return titles;
}

describe("pinned conversations are listed first", () => {
  it("pinned first, each part by latest activity, and pinning is not activity", async () => {
    const who = await signUp("pin-order");
    const old = await started(who, "old", 1000);
    await started(who, "new", 3000);
    const middle = await started(who, "middle", 2000);
    const response = await patchAs(who, old, { pinned: true });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { conversation: Listed }).conversation.pinned).toBe(true);
    await patchAs(who, middle, { pinned: true });

    expect((await page(who, "")).conversations.map((c) => c.title)).toEqual(["middle", "old", "new"]);
    expect((await stored(old)).updatedAt).toBe(1000);
  });

  it("the cursor pages across the pinned/unpinned boundary without gaps or repeats", async () => {
    const who = await signUp("pin-pages");
    // Equal times too, so the id decides between them.
    const times = [5000, 4000, 4000, 3000, 2000, 2000, 1000];
    const ids: string[] = [];
    for (const [index, at] of times.entries()) ids.push(await started(who, `c${index}`, at));
    for (const index of [1, 2, 4, 6]) await patchAs(who, ids[index] as string, { pinned: true });
    const whole = (await page(who, "limit=100")).conversations.map((c) => c.title);
    expect(whole.slice(0, 4).sort()).toEqual(["c1", "c2", "c4", "c6"]);
    expect(whole.slice(4).sort()).toEqual(["c0", "c3", "c5"]);

    for (const limit of [1, 2, 3, 4]) expect(await allPages(who, `limit=${limit}`)).toEqual(whole);
  });

  it("a cursor of the old form or tampered with is refused", async () => {
    const old = Buffer.from(JSON.stringify([1000, "x"])).toString("base64url");
    const response = await list(alice.request(`/api/conversations?cursor=${old}`, "GET"));
    await expectApiError(response, 400, "bad_request:cursor");
  });
});

describe("archived conversations are listed only by the archive filter", () => {
  it("archiving hides it from the list, ?archived=1 lists only archived ones, unarchiving brings it back", async () => {
    const who = await signUp("archive-list");
    const kept = await started(who, "kept", 1000);
    const put = await started(who, "put away", 2000);
    expect((await patchAs(who, put, { archived: true })).status).toBe(200);

    expect((await page(who, "")).conversations.map((c) => c.title)).toEqual(["kept"]);
    expect((await page(who, "archived=1")).conversations.map((c) => [c.title, c.archived])).toEqual([
      ["put away", true],
    ]);
    await patchAs(who, put, { archived: false });
    expect((await page(who, "")).conversations.map((c) => c.title)).toEqual(["put away", "kept"]);
    expect((await page(who, "archived=1")).conversations).toEqual([]);
    expect((await stored(kept)).updatedAt).toBe(1000);
  });

  it("search finds an archived conversation only in the archive filter", async () => {
    const who = await signUp("archive-search");
    await started(who, "zebra active", 1000);
    const put = await started(who, "zebra archived", 2000);
    await patchAs(who, put, { archived: true });
    expect((await page(who, "q=zebra")).conversations.map((c) => c.title)).toEqual(["zebra active"]);
    expect((await page(who, "q=zebra&archived=1")).conversations.map((c) => c.title)).toEqual(["zebra archived"]);
  });

  it("an archived conversation still opens by its id, saying it is archived", async () => {
    const who = await signUp("archive-open");
    const id = await started(who, "opened", 1000);
    await patchAs(who, id, { archived: true, pinned: true });
    const response = await getOne(who.request(`/api/conversations/${id}`, "GET"), params({ id }));
    expect(response.status).toBe(200);
    const { conversation } = (await response.json()) as { conversation: Listed };
    expect([conversation.archived, conversation.pinned]).toEqual([true, true]);
  });

  it("an archive filter other than 0 or 1 is refused", async () => {
    const response = await list(alice.request("/api/conversations?archived=yes", "GET"));
    await expectApiError(response, 400, "bad_request:validation");
  });
});

describe("PATCH pinned/archived is validated and owner-scoped", () => {
  it("a value that is not a boolean is refused and nothing changes", async () => {
    const id = await started(alice, "strict", 1000);
    for (const body of [{ pinned: "true" }, { archived: 1 }, { pinned: null }, { title: "new name", archived: "x" }]) {
      await expectApiError(await patchAs(alice, id, body), 400, "bad_request:validation");
    }
    const row = await stored(id);
    expect([row.title, row.pinned, row.archived]).toEqual(["strict", false, false]);
  });

  it("another user's conversation is a 404 and stays as it was", async () => {
    const id = await started(alice, "alice's", 1000);
    await expectApiError(await patchAs(bob, id, { pinned: true }), 404, "not_found:conversation");
    await expectApiError(await patchAs(bob, id, { archived: true }), 404, "not_found:conversation");
    const row = await stored(id);
    expect([row.pinned, row.archived]).toEqual([false, false]);
  });
});

describe("a turn sent to an archived conversation brings it back from the archive", () => {
  it("the conversation is no longer archived once its next question is sent", async () => {
    const who = await signUp("archive-send");
    const id = await started(who, "resumed", 1000);
    await patchAs(who, id, { archived: true });
    fake().script(
      { when: { stream: false, lastUserIncludes: "short title" }, content: '"Resumed."' },
      { when: { hasTools: true }, chunks: ["Back again."] },
    );
    const response = await chat(who.request("/api/chat", "POST", { conversationId: id, message: "One more thing" }));
    expect(response.status).toBe(200);
    await readEvents(response);
    await waitIdle(fake(), id);
    expect((await stored(id)).archived).toBe(false);
    expect((await page(who, "")).conversations.map((c) => c.title)).toEqual(["resumed"]);
  });
});
