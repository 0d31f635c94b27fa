import { describe, expect, it, vi } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import * as check from "@/lib/citations/check";
import type { CitationReport } from "@/lib/protocol/citations";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

/**
 * The passage finder at the end of every run (docs/research.md, "Checking citations"): an answer
 * that cites a source the run read gets a `citations` event before `done`, stored with its message.
 */

vi.mock("@/lib/citations/check", async (original) => {
  const actual = await original<typeof import("@/lib/citations/check")>();
  return { ...actual, checkCitations: vi.fn(actual.checkCitations) };
});

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

const PAGE = "<article><p>Ollama runs large language models locally on your own computer.</p></article>";

async function runChat(conversationId: string, message: string): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  return events;
}

/** A turn that reads the fake web's page and answers `answer`. */
function scriptPageAnswer(answer: string) {
  app.web().routes.set("/ollama", { body: PAGE });
  fake().script(
    { when: { hasTools: true }, toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/ollama` } }] },
    { when: { hasTools: true }, content: "The page says what Ollama does." },
    { when: { hasTools: false, stream: true }, chunks: [answer] },
  );
}

async function detailAnswer(id: string): Promise<{ content: string; citations?: CitationReport }> {
  const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
    messages: { role: string; content: string; citations?: CitationReport }[];
  };
  const answer = detail.messages.findLast((message) => message.role === "assistant");
  if (!answer) throw new Error("no answer stored");
  return answer;
}

describe("the passage finder at the end of a run", () => {
  it("sends the answer's citations checked against the page it read before done, and stores them with its message", async () => {
    const id = await newConversation();
    scriptPageAnswer("Ollama runs large language models locally [1].");
    const events = await runChat(id, "What does Ollama do?");

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
    const stored = await detailAnswer(id);
    expect(stored.content).toBe("Ollama runs large language models locally [1].");
    expect(stored.citations).toEqual(report);
  });

  it("a citation the page does not hold is not_found, naming what the page lacks", async () => {
    const id = await newConversation();
    scriptPageAnswer("Ollama was released by Meta in 2019 [1].");
    const events = await runChat(id, "Who made Ollama?");
    const report = events.find((event) => event.event === "citations")?.data as CitationReport;
    expect(report.checks).toEqual([
      expect.objectContaining({ n: 1, verdict: "not_found", missing: expect.arrayContaining(["Meta", "2019"]) }),
    ]);
    expect((await detailAnswer(id)).citations?.checks[0]?.verdict).toBe("not_found");
  });

  it("an answer without markers is not checked: no citations event, no report, no source read", async () => {
    vi.mocked(check.checkCitations).mockClear();
    const id = await newConversation();
    scriptPageAnswer("Ollama runs large language models locally.");
    const events = await runChat(id, "What does Ollama do?");
    expect(events.map((event) => event.event)).not.toContain("citations");
    expect(events.map((event) => event.event)).toContain("done");
    expect((await detailAnswer(id)).citations).toBeUndefined();
    expect(check.checkCitations).not.toHaveBeenCalled();
  });

  it("a run that read no source sends no citations, whatever its answer's markers", async () => {
    const id = await newConversation();
    fake().script({ content: "Two is two [1]." });
    const events = await runChat(id, "What is two?");
    expect(events.map((event) => event.event)).not.toContain("citations");
    expect((await detailAnswer(id)).citations).toBeUndefined();
  });

  it("a finder that fails does not fail the run: it ends complete with its answer and no citations", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.mocked(check.checkCitations).mockRejectedValueOnce(new Error("index broke"));
    try {
      const id = await newConversation();
      scriptPageAnswer("Ollama runs large language models locally [1].");
      const events = await runChat(id, "What does Ollama do?");
      const names = events.map((event) => event.event);
      expect(names).not.toContain("citations");
      expect(names).not.toContain("error");
      expect(names).toContain("done");
      const stored = await detailAnswer(id);
      expect(stored).toMatchObject({ content: "Ollama runs large language models locally [1]." });
      expect(stored.citations).toBeUndefined();
      expect(logged).toHaveBeenCalledWith(expect.stringContaining("could not check the citations"), expect.any(Error));
    } finally {
      logged.mockRestore();
    }
  });
});
