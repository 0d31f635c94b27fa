import { describe, expect, it } from "vitest";
import { GET as exportOne } from "@/app/api/conversations/[id]/export/route";
import { GET as exportAll } from "@/app/api/conversations/export/route";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { insertMessage } from "@/lib/db/messages";
import { resetConfigForTests } from "@/lib/env-config";
import { MAX_ENTRIES, zipEntries } from "@/lib/files/zip-entries";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { ORIGIN, setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

async function conversationOf(user: TestClient, title: string): Promise<string> {
  const response = await create(user.request("/api/conversations", "POST", { title }));
  const { conversation } = (await response.json()) as { conversation: { id: string } };
  await insertMessage(await getDb(), { conversationId: conversation.id, role: "user", content: `${title} question` });
  return conversation.id;
}

const titles = async (user: TestClient) =>
  (
    (await (await list(user.request("/api/conversations", "GET"))).json()) as { conversations: { title: string }[] }
  ).conversations
    .map((c) => c.title)
    .sort();

/**
 * An import whose upload arrives only when `finish` is called: it holds its slot until then.
 * `reading` settles once the route reads the body, so after its slot was taken.
 */
async function slowImport(
  user: TestClient,
  body: string,
): Promise<{ response: Promise<Response>; finish: () => void }> {
  let finish = () => {};
  let read = () => {};
  const reading = new Promise<void>((resolve) => {
    read = resolve;
  });
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(body.slice(0, 10)));
      finish = () => {
        controller.enqueue(new TextEncoder().encode(body.slice(10)));
        controller.close();
      };
    },
    pull: () => read(),
  });
  const request = new Request(`${ORIGIN}/api/conversations/import`, {
    method: "POST",
    headers: { origin: ORIGIN, cookie: user.cookie },
    body: stream,
    duplex: "half",
  } as RequestInit);
  const response = importFile(request);
  await reading;
  return { response, finish: () => finish() };
}

async function exportedText(user: TestClient, title: string): Promise<string> {
  const id = await conversationOf(user, title);
  return (await exportOne(user.request(`/api/conversations/${id}/export`, "GET"), params({ id }))).text();
}

describe("export and import between accounts", () => {
  it("answers 404 for another user's conversation, in every format", async () => {
    const id = await conversationOf(alice, "Alice's secret");
    for (const query of ["?format=json&files=1", "?format=md"]) {
      const response = await exportOne(bob.request(`/api/conversations/${id}/export${query}`, "GET"), params({ id }));
      await expectApiError(response, 404, "not_found:conversation");
    }
    const own = await exportOne(alice.request(`/api/conversations/${id}/export`, "GET"), params({ id }));
    expect(own.status).toBe(200);
  });

  it("exports only the user's own conversations in the archive", async () => {
    await conversationOf(bob, "Bob's plan");
    const response = await exportAll(bob.request("/api/conversations/export", "GET"));
    const names = (zipEntries(Buffer.from(await response.arrayBuffer()), MAX_ENTRIES) ?? []).map((e) => e.name);
    expect(names).toEqual(["0001 Bob's plan.json", "0001 Bob's plan.md"]);
  });

  it("imports into the importing user only: Alice's export imported by Bob is Bob's copy", async () => {
    const id = await conversationOf(alice, "Shared notes");
    const exported = await exportOne(alice.request(`/api/conversations/${id}/export`, "GET"), params({ id }));
    const aliceBefore = await titles(alice);
    const request = bob.request("/api/conversations/import", "POST", await exported.text());
    const report = (await (await importFile(request)).json()) as { imported: { id: string }[] };
    expect(report.imported).toHaveLength(1);
    expect(await titles(bob)).toContain("Shared notes");
    expect(await titles(alice)).toEqual(aliceBefore);
  });

  it("refuses an import from another origin", async () => {
    const request = bob.request("/api/conversations/import", "POST", "{}", { origin: "http://evil.example" });
    expect((await importFile(request)).status).toBe(403);
  });

  it("runs one import at a time per user: a second one while the first reads its upload is a 429 with Retry-After", async () => {
    const document = await exportedText(alice, "Slow one");
    const first = await slowImport(alice, document);
    const second = await importFile(alice.request("/api/conversations/import", "POST", document));
    expect(second.headers.get("retry-after")).toBe("10");
    expect(await expectApiError(second, 429, "rate_limited:imports_per_user")).toContain("still running");
    // Another user is not held up by it.
    expect((await importFile(bob.request("/api/conversations/import", "POST", document))).status).toBe(200);
    first.finish();
    expect((await first.response).status).toBe(200);
    // The slot is given back, also by an import that failed.
    await expectApiError(
      await importFile(alice.request("/api/conversations/import", "POST", "nope")),
      400,
      "bad_request:import_file",
    );
    expect((await importFile(alice.request("/api/conversations/import", "POST", document))).status).toBe(200);
  });

  it("runs at most MAX_IMPORTS_TOTAL imports on the server: one more, from anyone, is a 429 until one ends", async () => {
    process.env.MAX_IMPORTS_TOTAL = "1";
    resetConfigForTests();
    try {
      const document = await exportedText(alice, "Busy server");
      const first = await slowImport(alice, document);
      const refused = await importFile(bob.request("/api/conversations/import", "POST", document));
      expect(refused.headers.get("retry-after")).toBe("10");
      await expectApiError(refused, 429, "rate_limited:imports_total");
      first.finish();
      expect((await first.response).status).toBe(200);
      expect((await importFile(bob.request("/api/conversations/import", "POST", document))).status).toBe(200);
    } finally {
      delete process.env.MAX_IMPORTS_TOTAL;
      resetConfigForTests();
    }
  });
});
