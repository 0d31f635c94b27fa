import { describe, expect, it } from "vitest";
import { GET as exportOne } from "@/app/api/conversations/[id]/export/route";
import { GET as exportAll } from "@/app/api/conversations/export/route";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { insertMessage } from "@/lib/db/queries";
import { MAX_ENTRIES, zipEntries } from "@/lib/files/zip-entries";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
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
});
