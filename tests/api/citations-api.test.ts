import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as checkRoute } from "@/app/api/conversations/[id]/messages/[messageId]/citations/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import * as check from "@/lib/citations/check";
import * as runs from "@/lib/db/runs";
import { resetConfigForTests } from "@/lib/env-config";
import type { CitationReport } from "@/lib/protocol/citations";
import { processSingleton } from "@/lib/util/process-singleton";
import { Semaphore } from "@/lib/util/semaphore";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, setupAppEnv } from "@/tests/support/app-env";
import { conversationOf, runChatAs, scriptPageAnswer } from "@/tests/support/page-run";

/**
 * Checking an answer's citations (docs/research.md, "Checking citations"): the passage finder at
 * the end of every run whose answer cites a source it read (a `citations` event before `done`,
 * stored with the message), and "Check citations", the verifier on demand.
 */

vi.mock("@/lib/citations/check", async (original) => {
  const actual = await original<typeof import("@/lib/citations/check")>();
  return { ...actual, checkCitations: vi.fn(actual.checkCitations) };
});

/** The instance's verifier slots, as the route holds them (lib/chat/citation-check.ts). */
const verifySlots = processSingleton("citationVerifySlots", () => new Semaphore());

const fake = setupFakeOllama();
const app = setupAppEnv(fake);
const { admin: alice, user: bob } = setupAccounts({ admin: "alice-cites", user: "bob-cites" });

vi.mock("@/lib/db/runs", async (original) => {
  const actual = await original<typeof import("@/lib/db/runs")>();
  return { ...actual, finishRun: vi.fn(actual.finishRun) };
});

const CITED = "Ollama runs large language models locally [1].";

interface StoredMessage {
  id: string;
  role: string;
  content: string;
  citations?: CitationReport;
}

async function messagesOf(user: TestClient, id: string): Promise<StoredMessage[]> {
  const response = await getOne(user.request(`/api/conversations/${id}`, "GET"), params({ id }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: StoredMessage[] }).messages;
}

async function storedAnswer(user: TestClient, id: string): Promise<StoredMessage> {
  const answer = (await messagesOf(user, id)).findLast((message) => message.role === "assistant");
  if (!answer) throw new Error("no answer stored");
  return answer;
}

/** Alice's conversation whose answer is `answer`, after a turn that read the fake web's page. */
async function pageAnswer(answer: string) {
  const id = await conversationOf(alice);
  scriptPageAnswer(fake(), app.web(), answer);
  const events = await runChatAs(alice, fake(), id, "What does Ollama do?");
  return { id, events, message: await storedAnswer(alice, id) };
}

function checkAs(user: TestClient, id: string, messageId: string, signal?: AbortSignal): Promise<Response> {
  const request = user.request(`/api/conversations/${id}/messages/${messageId}/citations`, "POST");
  return checkRoute(signal ? new Request(request, { signal }) : request, params({ id, messageId }));
}

/** The verifier's reply on the fake Ollama: one `judge_citation` call. */
const judged = (verdict: string, reason: string, extra: Record<string, unknown> = {}) => ({
  when: { lastUserIncludes: "Claim:\n" },
  toolCalls: [{ name: "judge_citation", arguments: { verdict, reason } }],
  ...extra,
});

describe("the passage finder at the end of a run", () => {
  it("sends the answer's citations checked against the page it read before done, and stores them with its message", async () => {
    const { events, message } = await pageAnswer(CITED);

    const names = events.map((event) => event.event);
    expect(names).toContain("citations");
    expect(names.indexOf("citations")).toBeLessThan(names.indexOf("done"));
    const report = events.find((event) => event.event === "citations")?.data as CitationReport;
    expect(report.verifierModel).toBeUndefined();
    expect(report.checks).toEqual([
      expect.objectContaining({
        sentence: "Ollama runs large language models locally.",
        n: 1,
        verdict: "found",
        missing: [],
        passage: expect.objectContaining({ text: expect.stringContaining("runs large language models locally") }),
      }),
    ]);
    expect(message.content).toBe(CITED);
    expect(message.citations).toEqual(report);
  });

  it("a citation the page does not hold is not_found, naming what the page lacks", async () => {
    const { events, message } = await pageAnswer("Ollama was released by Meta in 2019 [1].");
    const report = events.find((event) => event.event === "citations")?.data as CitationReport;
    expect(report.checks).toEqual([
      expect.objectContaining({ n: 1, verdict: "not_found", missing: expect.arrayContaining(["Meta", "2019"]) }),
    ]);
    expect(message.citations?.checks[0]?.verdict).toBe("not_found");
  });

  it("an answer without markers is not checked: no citations event, no report, no source read", async () => {
    vi.mocked(check.checkCitations).mockClear();
    const { events, message } = await pageAnswer("Ollama runs large language models locally.");
    expect(events.map((event) => event.event)).not.toContain("citations");
    expect(events.map((event) => event.event)).toContain("done");
    expect(message.citations).toBeUndefined();
    expect(check.checkCitations).not.toHaveBeenCalled();
  });

  it("a run that read no source sends no citations, whatever its answer's markers", async () => {
    const id = await conversationOf(alice);
    fake().script({ content: "Two is two [1]." });
    const events = await runChatAs(alice, fake(), id, "What is two?");
    expect(events.map((event) => event.event)).not.toContain("citations");
    expect((await storedAnswer(alice, id)).citations).toBeUndefined();
  });

  it("a report whose answer a busy database held back is stored with it once the database is free", async () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    vi.mocked(runs.finishRun).mockRejectedValueOnce(busy);
    const id = await conversationOf(alice);
    scriptPageAnswer(fake(), app.web(), CITED);
    const events = await runChatAs(alice, fake(), id, "What does Ollama do?");
    const names = events.map((event) => event.event);
    expect(names).toEqual(expect.arrayContaining(["citations", "error", "done"]));
    const report = events.find((event) => event.event === "citations")?.data as CitationReport;
    await expect
      .poll(async () => (await messagesOf(alice, id)).find((m) => m.role === "assistant")?.citations, { timeout: 5000 })
      .toEqual(report);
  });

  it("a finder that fails does not fail the run: it ends complete with its answer and no citations", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.mocked(check.checkCitations).mockRejectedValueOnce(new Error("index broke"));
    try {
      const { events, message } = await pageAnswer(CITED);
      const names = events.map((event) => event.event);
      expect(names).not.toContain("citations");
      expect(names).not.toContain("error");
      expect(names).toContain("done");
      expect(message.content).toBe(CITED);
      expect(message.citations).toBeUndefined();
      expect(logged).toHaveBeenCalledWith(expect.stringContaining("could not check the citations"), expect.any(Error));
    } finally {
      logged.mockRestore();
    }
  });
});

describe("POST /api/conversations/:id/messages/:messageId/citations", () => {
  afterEach(() => {
    delete process.env.MODEL_FAST;
    resetConfigForTests();
  });

  it("has the fast role's model judge each found citation and replaces the finder's report with its verdicts", async () => {
    const { id, message } = await pageAnswer(`${CITED} It was written in Rust [1].`);
    expect(message.citations?.checks.map((c) => c.verdict)).toEqual(["found", "not_found"]);
    process.env.MODEL_FAST = "qwen3:8b";
    resetConfigForTests();
    fake().script(judged("partly", "The passage says local, not which models.", { when: { model: "qwen3:8b" } }));

    const response = await checkAs(alice, id, message.id);
    expect(response.status).toBe(200);
    const report = (await response.json()) as CitationReport;
    expect(report.verifierModel).toBe("qwen3:8b");
    expect(report.checks).toEqual([
      expect.objectContaining({ n: 1, verdict: "partly", reason: "The passage says local, not which models." }),
      // A citation the finder found no passage for is not sent to the model.
      expect.objectContaining({ n: 1, verdict: "not_found" }),
    ]);
    const verifierCalls = fake()
      .chatRequests()
      .filter((r) => JSON.stringify(r.body.messages).includes("Claim:\\n"));
    expect(verifierCalls.map((r) => r.body.model)).toEqual(["qwen3:8b"]);
    expect((await storedAnswer(alice, id)).citations).toEqual(report);
  });

  it("without a fast model, the answer's own model judges", async () => {
    const { id, message } = await pageAnswer(CITED);
    fake().script(judged("supported", "The passage says so."));
    const report = (await (await checkAs(alice, id, message.id)).json()) as CitationReport;
    expect(report).toMatchObject({
      verifierModel: "llama3.2:latest",
      checks: [expect.objectContaining({ verdict: "supported" })],
    });
  });

  it("refuses a second check of the same answer while the first runs (409), and checks again once it ended", async () => {
    const { id, message } = await pageAnswer(CITED);
    fake().script(judged("supported", "Held.", { hang: true }));
    const first = new AbortController();
    const running = checkAs(alice, id, message.id, first.signal);
    await expect
      .poll(() =>
        fake()
          .chatRequests()
          .some((r) => !r.finished && !r.aborted),
      )
      .toBe(true);

    await expectApiError(await checkAs(alice, id, message.id), 409, "conflict:citations_checking");

    first.abort();
    await running.catch(() => undefined);
    fake().script(judged("unsupported", "It does not say that."));
    const again = await checkAs(alice, id, message.id);
    expect(again.status).toBe(200);
    expect(((await again.json()) as CitationReport).checks[0]?.verdict).toBe("unsupported");
  });

  it("checks of different answers share the instance's CITATION_VERIFY_CONCURRENCY verifier slots", async () => {
    process.env.CITATION_VERIFY_CONCURRENCY = "1";
    resetConfigForTests();
    try {
      const a = await pageAnswer(CITED);
      const b = await pageAnswer(CITED);
      const open = () =>
        fake()
          .chatRequests()
          .filter((r) => !r.finished && !r.aborted).length;
      fake().script(judged("supported", "Held.", { hang: true }));
      const first = new AbortController();
      const running = checkAs(alice, a.id, a.message.id, first.signal);
      await expect.poll(open).toBe(1);
      fake().script(judged("supported", "The passage says so."));
      const second = checkAs(alice, b.id, b.message.id);
      // The second check waits for the slot the first holds, asking its model nothing yet.
      await expect.poll(() => verifySlots().waiting).toBe(1);
      expect(open()).toBe(1);

      first.abort();
      await running.catch(() => undefined);
      const response = await second;
      expect(response.status).toBe(200);
      expect(((await response.json()) as CitationReport).checks[0]?.verdict).toBe("supported");
    } finally {
      delete process.env.CITATION_VERIFY_CONCURRENCY;
    }
  });

  it("another user's conversation or an unknown message is 404, and nothing is checked", async () => {
    const { id, message } = await pageAnswer(CITED);
    const before = fake().chatRequests().length;
    await expectApiError(await checkAs(bob, id, message.id), 404, "not_found:conversation");
    await expectApiError(await checkAs(alice, id, "no-such-message"), 404, "not_found:message");
    expect(fake().chatRequests()).toHaveLength(before);
    expect((await storedAnswer(alice, id)).citations?.verifierModel).toBeUndefined();
  });

  it("a question is not an answer: 400", async () => {
    const { id } = await pageAnswer(CITED);
    const question = (await messagesOf(alice, id)).find((m) => m.role === "user");
    await expectApiError(await checkAs(alice, id, String(question?.id)), 400, "bad_request:not_an_answer");
  });

  it("an answer that cites nothing gets an empty report and asks no model", async () => {
    const { id, message } = await pageAnswer("Ollama runs large language models locally.");
    const before = fake().chatRequests().length;
    const response = await checkAs(alice, id, message.id);
    expect(response.status).toBe(200);
    expect(((await response.json()) as CitationReport).checks).toEqual([]);
    expect(fake().chatRequests()).toHaveLength(before);
    expect((await storedAnswer(alice, id)).citations).toBeUndefined();
  });
});
