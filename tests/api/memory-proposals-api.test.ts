import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { DELETE as removeUser } from "@/app/api/admin/users/[userId]/route";
import { POST as addUser } from "@/app/api/admin/users/route";
import { POST as chat } from "@/app/api/chat/route";
import { GET as exportOne } from "@/app/api/conversations/[id]/export/route";
import { DELETE as deleteConversation, GET as getConversation } from "@/app/api/conversations/[id]/route";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { DELETE as deleteMemory } from "@/app/api/memories/[id]/route";
import { POST as dismiss, GET as listDismissed } from "@/app/api/memories/dismissals/route";
import { POST as createMemory, GET as listMemories } from "@/app/api/memories/route";
import { PATCH as patchMemorySettings } from "@/app/api/memories/settings/route";
import { getDb } from "@/lib/db/client";
import { memoryDismissals } from "@/lib/db/schema";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { PASSWORD, setupAccounts, signIn, type TestClient } from "@/tests/support/accounts";
import { expectApiError, type ParsedEvent, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";

/**
 * What the user does with an answer's memory chip (docs/architecture.md, "Projects and memory"): a
 * proposal saved by its run while the answer still streams names the answer once stored, exactly as
 * one saved after; a dismissed proposal stays dismissed, its owner's only (adversarial: another
 * account can neither save from, dismiss on nor read the dismissals of alice's run), and goes with
 * the conversation and the account; an export does not carry it.
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

interface Memory {
  id: string;
  text: string;
  conversationId: string | null;
  messageId: string | null;
  runId: string | null;
}

const FACT = "My team uses PostgreSQL 16.";

afterEach(async () => {
  for (const who of [alice, bob]) {
    for (const memory of await memoriesOf(who)) {
      await deleteMemory(who.request(`/api/memories/${memory.id}`, "DELETE"), params({ id: memory.id }));
    }
    await patchMemorySettings(who.request("/api/memories/settings", "PATCH", { askBeforeSaving: false }));
  }
});

async function memoriesOf(who: TestClient): Promise<Memory[]> {
  const response = await listMemories(who.request("/api/memories", "GET"));
  return ((await response.json()) as { memories: Memory[] }).memories;
}

async function newChat(who: TestClient): Promise<string> {
  const response = await createConversation(who.request("/api/conversations", "POST", {}));
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

/**
 * A turn in which the model proposes `FACT` (alice asks before saving), its answer held back
 * `answerDelayMs`: read up to the proposal's step only. The run goes on without a reader.
 */
async function proposingTurn(who: TestClient, answerDelayMs = 0) {
  await patchMemorySettings(who.request("/api/memories/settings", "PATCH", { askBeforeSaving: true }));
  const conversationId = await newChat(who);
  fake().reset();
  fake().script(
    { when: { hasTools: true }, toolCalls: [{ name: "remember", arguments: { text: FACT }, id: "r1" }] },
    { when: { hasTools: true }, content: "Noted." },
    { when: { hasTools: false, stream: true }, chunks: ["Noted, ", "I will ask."], delayMs: answerDelayMs },
  );
  const response = await chat(who.request("/api/chat", "POST", { conversationId, message: FACT }));
  expect(response.status).toBe(200);
  const events = await readEvents(response, (e) => e.event === "step" && e.data.type === "tool_result");
  const runId = String(events.find((e) => e.event === "run")?.data.runId);
  const proposal = events.at(-1) as ParsedEvent;
  expect(proposal.data.memory).toEqual({ status: "proposed", text: FACT });
  return { conversationId, runId };
}

/** The answer of the conversation's one run, once stored. */
async function answerOf(who: TestClient, conversationId: string): Promise<string> {
  const response = await getConversation(
    who.request(`/api/conversations/${conversationId}`, "GET"),
    params({ id: conversationId }),
  );
  const { messages } = (await response.json()) as { messages: { id: string; role: string }[] };
  const answer = messages.find((m) => m.role === "assistant");
  if (!answer) throw new Error("no answer stored");
  return answer.id;
}

const save = (who: TestClient, body: Record<string, unknown>) =>
  createMemory(who.request("/api/memories", "POST", body));
const dismissals = (who: TestClient, runId: string) =>
  listDismissed(who.request(`/api/memories/dismissals?runId=${encodeURIComponent(runId)}`, "GET"));
const dismissedOf = async (who: TestClient, runId: string) =>
  ((await (await dismissals(who, runId)).json()) as { dismissed: string[] }).dismissed;

describe("saving a proposal", () => {
  it("saved by its run while the answer still streams, it names the answer once that is stored", async () => {
    const { conversationId, runId } = await proposingTurn(alice, 1500);
    const response = await save(alice, { text: FACT, runId });
    expect(response.status).toBe(201);
    const { memory } = (await response.json()) as { memory: Memory };
    // Not stored yet: the answer is still being written.
    expect(memory).toMatchObject({ runId, conversationId, messageId: null });
    await waitIdle(fake(), conversationId);
    const answer = await answerOf(alice, conversationId);
    expect(await memoriesOf(alice)).toEqual([expect.objectContaining({ id: memory.id, messageId: answer, runId })]);
  });

  it("saved by its run after the answer is stored, it is the same: run, conversation and answer", async () => {
    const { conversationId, runId } = await proposingTurn(alice);
    await waitIdle(fake(), conversationId);
    const response = await save(alice, { text: FACT, runId });
    const { memory } = (await response.json()) as { memory: Memory };
    expect(memory).toMatchObject({ runId, conversationId, messageId: await answerOf(alice, conversationId) });
  });

  it("another user's run is not found: bob cannot save from it, and nothing is stored", async () => {
    const { conversationId, runId } = await proposingTurn(alice);
    await waitIdle(fake(), conversationId);
    await expectApiError(await save(bob, { text: FACT, runId }), 404, "not_found:run");
    await expectApiError(await save(bob, { text: FACT, runId: "no-such-run" }), 404, "not_found:run");
    await expectApiError(
      await save(alice, { text: FACT, runId, messageId: await answerOf(alice, conversationId) }),
      400,
      "bad_request:validation",
    );
    expect(await memoriesOf(bob)).toEqual([]);
    expect(await memoriesOf(alice)).toEqual([]);
  });

  it("a memory from a run outlives its conversation: deleted with it are only the run and answer it named", async () => {
    const { conversationId, runId } = await proposingTurn(alice);
    await waitIdle(fake(), conversationId);
    await save(alice, { text: FACT, runId });
    const deleted = await deleteConversation(
      alice.request(`/api/conversations/${conversationId}`, "DELETE"),
      params({ id: conversationId }),
    );
    expect(deleted.status).toBe(204);
    expect(await memoriesOf(alice)).toEqual([
      expect.objectContaining({ text: FACT, runId: null, conversationId: null, messageId: null }),
    ]);
  });
});

describe("dismissing a proposal", () => {
  it("is kept: the run's dismissals list it from then on, while the answer streams and after", async () => {
    const { conversationId, runId } = await proposingTurn(alice, 500);
    expect(await dismissedOf(alice, runId)).toEqual([]);
    const response = await dismiss(alice.request("/api/memories/dismissals", "POST", { runId, text: FACT }));
    expect(response.status).toBe(204);
    await waitIdle(fake(), conversationId);
    expect(await dismissedOf(alice, runId)).toEqual([FACT]);
    // Dismissed is not saved.
    expect(await memoriesOf(alice)).toEqual([]);
  });

  it("is the owner's only: bob can neither read alice's dismissals nor dismiss on her run", async () => {
    const { conversationId, runId } = await proposingTurn(alice);
    await waitIdle(fake(), conversationId);
    await dismiss(alice.request("/api/memories/dismissals", "POST", { runId, text: FACT }));
    await expectApiError(await dismissals(bob, runId), 404, "not_found:run");
    await expectApiError(
      await dismiss(bob.request("/api/memories/dismissals", "POST", { runId, text: "bob was here" })),
      404,
      "not_found:run",
    );
    expect(await dismissedOf(alice, runId)).toEqual([FACT]);
    await expectApiError(
      await dismiss(alice.request("/api/memories/dismissals", "POST", { runId, text: " " })),
      400,
      "bad_request:validation",
    );
  });

  it("goes with its conversation, and with the account", async () => {
    const { conversationId, runId } = await proposingTurn(alice);
    await waitIdle(fake(), conversationId);
    await dismiss(alice.request("/api/memories/dismissals", "POST", { runId, text: FACT }));
    await deleteConversation(
      alice.request(`/api/conversations/${conversationId}`, "DELETE"),
      params({ id: conversationId }),
    );
    const db = await getDb();
    const rowsOf = (run: string) => db.select().from(memoryDismissals).where(eq(memoryDismissals.runId, run));
    expect(await rowsOf(runId)).toEqual([]);

    const made = await addUser(alice.request("/api/admin/users", "POST", { username: "carol", password: PASSWORD }));
    const { user } = (await made.json()) as { user: { id: string } };
    const carol = await signIn("carol");
    const carols = await proposingTurn(carol);
    await waitIdle(fake(), carols.conversationId);
    await dismiss(carol.request("/api/memories/dismissals", "POST", { runId: carols.runId, text: FACT }));
    expect(await rowsOf(carols.runId)).toHaveLength(1);
    expect((await removeUser(alice.request("", "DELETE"), params({ userId: user.id }))).status).toBe(204);
    expect(await db.select().from(memoryDismissals).where(eq(memoryDismissals.userId, user.id))).toEqual([]);
  });

  it("an export does not carry it: the imported copy's proposal is not dismissed, and the original's stays so", async () => {
    const { conversationId, runId } = await proposingTurn(alice);
    await waitIdle(fake(), conversationId);
    await dismiss(alice.request("/api/memories/dismissals", "POST", { runId, text: FACT }));
    const exported = await exportOne(
      alice.request(`/api/conversations/${conversationId}/export`, "GET"),
      params({ id: conversationId }),
    );
    const imported = await importFile(alice.request("/api/conversations/import", "POST", await exported.text()));
    expect(imported.status).toBe(200);
    const [copy] = ((await imported.json()) as { imported: { id: string }[] }).imported;
    const response = await getConversation(
      alice.request(`/api/conversations/${copy?.id}`, "GET"),
      params({ id: copy?.id ?? "" }),
    );
    const { messages } = (await response.json()) as { messages: { role: string; runId: string | null }[] };
    const copiedRun = messages.find((m) => m.role === "assistant")?.runId;
    expect(copiedRun).toBeTruthy();
    expect(copiedRun).not.toBe(runId);
    expect(await dismissedOf(alice, copiedRun ?? "")).toEqual([]);
    expect(await dismissedOf(alice, runId)).toEqual([FACT]);
  });
});
