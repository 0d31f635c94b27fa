import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as branch } from "@/app/api/conversations/[id]/branch/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { getDb } from "@/lib/db/client";
import { saveConversationSummary } from "@/lib/db/conversations";
import { listMessages } from "@/lib/db/messages";
import { listRuns } from "@/lib/db/runs";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

interface StoredMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  parentId: string | null;
  versions: string[];
}
interface Detail {
  messages: StoredMessage[];
}

const send = (body: Record<string, unknown>) => chat(jsonRequest("/api/chat", "POST", body));

async function detail(id: string): Promise<Detail> {
  return (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as Detail;
}

const selectBranch = (id: string, messageId: string) => branch(jsonRequest("", "POST", { messageId }), params({ id }));

const idle = (conversationId: string) => waitIdle(fake(), conversationId);

/** One finished turn: its question is `message`, its answer the fake model's. */
async function turn(id: string, body: Record<string, unknown>): Promise<void> {
  const events = await readEvents(await send({ conversationId: id, ...body }));
  expect(events.map((e) => e.event)).toContain("done");
  await idle(id);
}

const contents = (messages: StoredMessage[]) => messages.map((m) => m.content.split("\n")[0]);

/** What the model was given in the last turn's tool loop. */
function lastPrompt(): string {
  const messages = fake()
    .chatRequests()
    .filter((r) => r.body?.tools)
    .at(-1)?.body.messages as { content: string }[];
  return messages.map((m) => m.content).join("\n");
}

async function twoTurns(): Promise<{ id: string; messages: StoredMessage[] }> {
  const id = await newConversation();
  await turn(id, { message: "first question" });
  await turn(id, { message: "second question" });
  return { id, messages: (await detail(id)).messages };
}

describe("regenerate keeps the earlier answer as a version", () => {
  it("a regenerated answer is a new version under the same question, and the branch shows it", async () => {
    const { id, messages } = await twoTurns();
    const [, , question, old] = messages;
    fake().script({ when: { hasTools: true }, content: "A better answer." });
    await turn(id, { regenerate: old?.id });
    const after = (await detail(id)).messages;
    expect(contents(after)).toEqual(["first question", expect.any(String), "second question", "A better answer."]);
    expect(after[3]?.parentId).toBe(question?.id);
    expect(after[3]?.versions).toEqual([old?.id, after[3]?.id]);
    // Nothing is deleted, and the question is not stored twice.
    const stored = await listMessages(await getDb(), { conversationId: id });
    expect(stored.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "first question",
      "second question",
    ]);
    expect(stored.filter((m) => m.role === "assistant")).toHaveLength(3);
  });

  it("regenerate answers the stored question, from the turns before it only", async () => {
    const { id, messages } = await twoTurns();
    await turn(id, { regenerate: messages[1]?.id });
    const prompt = lastPrompt();
    expect(prompt).toContain("first question");
    expect(prompt).not.toContain("second question");
    expect(contents((await detail(id)).messages)).toEqual(["first question", expect.any(String)]);
  });
});

describe("editing any question starts a new branch from there", () => {
  it("an edit of the first question is a new version of it, and the old branch stays reachable", async () => {
    const { id, messages } = await twoTurns();
    const first = messages[0] as StoredMessage;
    await turn(id, { editOf: first.id, message: "first, rephrased" });
    const edited = (await detail(id)).messages;
    expect(contents(edited)).toEqual(["first, rephrased", expect.any(String)]);
    expect(edited[0]?.versions).toEqual([first.id, edited[0]?.id]);
    // The model saw none of the old branch.
    expect(lastPrompt()).not.toContain("second question");

    const back = await selectBranch(id, first.id);
    expect(back.status).toBe(200);
    const old = ((await back.json()) as Detail).messages;
    expect(old.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    // The choice is stored: reading the conversation again shows the same branch.
    expect((await detail(id)).messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
  });

  it("a new turn follows the branch shown", async () => {
    const { id, messages } = await twoTurns();
    await turn(id, { editOf: messages[2]?.id, message: "second, rephrased" });
    await selectBranch(id, messages[2]?.id as string);
    await turn(id, { message: "third question" });
    const shown = (await detail(id)).messages;
    expect(contents(shown)).toEqual([
      "first question",
      expect.any(String),
      "second question",
      expect.any(String),
      "third question",
      expect.any(String),
    ]);
    expect(lastPrompt()).not.toContain("rephrased");
  });

  it("a question after an earlier answer (parentId) branches there", async () => {
    const { id, messages } = await twoTurns();
    await turn(id, { parentId: messages[1]?.id, message: "another second question" });
    const shown = (await detail(id)).messages;
    expect(contents(shown)).toEqual([
      "first question",
      expect.any(String),
      "another second question",
      expect.any(String),
    ]);
    expect(shown[2]?.versions).toEqual([messages[2]?.id, shown[2]?.id]);
  });
});

describe("switching versions", () => {
  it("switching to a version shows the newest branch below it", async () => {
    const { id, messages } = await twoTurns();
    await turn(id, { regenerate: messages[1]?.id });
    // The second answer of the first question has no turn below it; the first one keeps its turn.
    expect((await detail(id)).messages).toHaveLength(2);
    const old = ((await (await selectBranch(id, messages[1]?.id as string)).json()) as Detail).messages;
    expect(old.map((m) => m.id)).toEqual(messages.map((m) => m.id));
  });

  it("a message of another conversation, or none, is a 404 and changes nothing", async () => {
    const { id, messages } = await twoTurns();
    const other = await newConversation();
    await turn(other, { message: "elsewhere" });
    const foreign = (await detail(other)).messages[0]?.id as string;
    const before = (await detail(id)).messages.map((m) => m.id);
    await expectApiError(await selectBranch(id, foreign), 404, "not_found:message");
    await expectApiError(await selectBranch(id, "no-such-message"), 404, "not_found:message");
    await expectApiError(
      await selectBranch("no-such-conversation", messages[0]?.id as string),
      404,
      "not_found:conversation",
    );
    expect((await detail(id)).messages.map((m) => m.id)).toEqual(before);
  });

  it("is refused while a run works in the conversation", async () => {
    const { id, messages } = await twoTurns();
    fake().script({ when: { hasTools: true }, hang: true });
    const running = await send({ conversationId: id, message: "third question" });
    expect(await expectApiError(await selectBranch(id, messages[0]?.id as string), 409, "conflict:run_active")).toMatch(
      /stop it/,
    );
    expect((await stop(jsonRequest("", "POST"), params({ id }))).status).toBe(202);
    await readEvents(running);
    await idle(id);
  });
});

describe("a refused branch leaves no trace", () => {
  it.each([
    ["regenerate of a question", (m: StoredMessage[]) => ({ regenerate: m[0]?.id }), "bad_request:regenerate"],
    ["regenerate of an unknown id", () => ({ regenerate: "nope" }), "bad_request:regenerate"],
    ["editOf an answer", (m: StoredMessage[]) => ({ editOf: m[1]?.id, message: "x" }), "bad_request:edit_of"],
    ["editOf an unknown id", () => ({ editOf: "nope", message: "x" }), "bad_request:edit_of"],
    ["parentId of a question", (m: StoredMessage[]) => ({ parentId: m[2]?.id, message: "x" }), "bad_request:parent"],
    ["parentId unknown", () => ({ parentId: "nope", message: "x" }), "bad_request:parent"],
    [
      "regenerate with a message",
      (m: StoredMessage[]) => ({ regenerate: m[1]?.id, message: "x" }),
      "bad_request:validation",
    ],
    [
      "editOf and parentId together",
      (m: StoredMessage[]) => ({ editOf: m[0]?.id, parentId: m[1]?.id, message: "x" }),
      "bad_request:validation",
    ],
    ["no message", () => ({}), "bad_request:validation"],
    ["the old replaceLast", () => ({ message: "x", replaceLast: true }), "bad_request:validation"],
  ])("%s is a 400", async (_label, body, code) => {
    const { id, messages } = await twoTurns();
    const before = {
      messages: await listMessages(await getDb(), { conversationId: id }),
      runs: await listRuns(await getDb(), { conversationId: id }),
    };
    await expectApiError(await send({ conversationId: id, ...body(messages) }), 400, code);
    expect({
      messages: await listMessages(await getDb(), { conversationId: id }),
      runs: await listRuns(await getDb(), { conversationId: id }),
    }).toEqual(before);
  });

  it("ids of another conversation's messages are refused like unknown ones", async () => {
    const { messages: foreign } = await twoTurns();
    const id = await newConversation();
    await turn(id, { message: "mine" });
    await expectApiError(await send({ conversationId: id, regenerate: foreign[1]?.id }), 400, "bad_request:regenerate");
    await expectApiError(
      await send({ conversationId: id, editOf: foreign[0]?.id, message: "x" }),
      400,
      "bad_request:edit_of",
    );
    await expectApiError(
      await send({ conversationId: id, parentId: foreign[1]?.id, message: "x" }),
      400,
      "bad_request:parent",
    );
  });
});

describe("the model's context is the branch shown", () => {
  it("uses a compaction summary only on the branch it was made on", async () => {
    const { id, messages } = await twoTurns();
    // A summary made on this branch, covering its first turn.
    await saveConversationSummary(await getDb(), {
      id,
      summary: "SUMMARY-OF-TURN-ONE",
      throughMessageId: messages[1]?.id as string,
    });
    await turn(id, { regenerate: messages[3]?.id });
    expect(lastPrompt()).toContain("SUMMARY-OF-TURN-ONE");
    expect(lastPrompt()).not.toContain("first question");

    // An edit of the first question leaves the summarised turn off the branch: no summary.
    await turn(id, { editOf: messages[0]?.id, message: "first, rephrased" });
    expect(lastPrompt()).not.toContain("SUMMARY-OF-TURN-ONE");
  });
});
