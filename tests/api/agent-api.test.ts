import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { extractHtmlText } from "@/lib/tools/html-text";
import { parsePageInfo } from "@/lib/tools/page-info";
import type { ChatRequestBody } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";
import { duckDuckGoPage } from "@/tests/support/fake-web";

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

async function runChat(body: Record<string, unknown>): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", body));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), String(body.conversationId));
  return events;
}

const steps = (events: ParsedEvent[]) => events.filter((e) => e.event === "step").map((e) => e.data);

describe("the agent behind /api/chat", () => {
  it("runs two parallel native tool calls, streams their steps, and sends the results back in call order", async () => {
    app.web().routes.set("/html/", {
      body: duckDuckGoPage([{ title: "Ollama", href: "https://ollama.com/", snippet: "Run models" }]),
    });
    app.web().routes.set("/page", { body: "<article><p>Page text here.</p></article>" });
    const id = await newConversation();
    fake().script(
      {
        when: { hasTools: true },
        toolCalls: [
          { name: "web_search", arguments: { query: "ollama" }, id: "call_search01" },
          { name: "scrape_url", arguments: { url: `${app.web().url}/page` }, id: "call_scrape01" },
        ],
      },
      { when: { hasTools: true }, content: "Ollama runs models; the page says hi." },
      { when: { hasTools: false, stream: true }, chunks: ["Ollama ", "runs ", "models."] },
    );
    const events = await runChat({ conversationId: id, message: "What is Ollama?" });

    const stepEvents = steps(events);
    expect(stepEvents.map((s) => `${s.type}:${s.callId}`)).toEqual([
      "tool_call:call_search01",
      "tool_call:call_scrape01",
      expect.stringMatching(/^tool_result:call_/),
      expect.stringMatching(/^tool_result:call_/),
    ]);
    const seqs = stepEvents.map((s) => s.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const scrape = stepEvents.find((s) => s.type === "tool_result" && s.callId === "call_scrape01");
    expect(scrape).toMatchObject({ tool: "scrape_url", ok: true, observation: "Page text here.", iteration: 1 });
    const search = stepEvents.find((s) => s.type === "tool_result" && s.callId === "call_search01");
    expect(JSON.parse(String(search?.observation))).toEqual([
      { title: "Ollama", href: "https://ollama.com/", body: "Run models" },
    ]);

    const second = fake().chatRequests()[1]?.body.messages as Record<string, unknown>[];
    expect(second.slice(-3).map((m) => [m.role, m.tool_name ?? null, m.tool_call_id ?? null])).toEqual([
      ["assistant", null, null],
      ["tool", "web_search", "call_search01"],
      ["tool", "scrape_url", "call_scrape01"],
    ]);
    const answer = events.filter((e) => e.event === "answer" && e.data.status === "delta").map((e) => e.data.content);
    expect(answer.join("")).toBe("Ollama runs models.");
    expect(events.findLast((e) => e.event === "done")).toMatchObject({ event: "done", data: { iterations: 2 } });
  });

  it("after a reload the turn shows its steps, with mode and model on its run", async () => {
    app.web().routes.set("/page", { body: "<p>Stored.</p>" });
    const id = await newConversation();
    fake().script({
      when: { hasTools: true },
      toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/page` } }],
    });
    await runChat({ conversationId: id, message: "read it" });
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      messages: {
        role: string;
        run: { mode: string; model: string; iterations: number; steps: { type: string }[] } | null;
      }[];
    };
    const run = detail.messages[1]?.run;
    expect(run).toMatchObject({ mode: "native", model: "llama3.2:latest", iterations: 2 });
    expect(run?.steps.map((s) => s.type)).toEqual(["tool_call", "tool_result"]);
  });

  it("uses JSON mode for a model without tool support, with format json", async () => {
    const id = await newConversation("gemma:2b");
    // The first action is final_answer: it is the answer, with no synthesis call.
    fake().script({ content: 'Here:\n```json\n{"type":"final_answer","reasoning":"easy","answer":"4"}\n```' });
    const events = await runChat({ conversationId: id, message: "2+2?" });
    const answer = events.filter((e) => e.event === "answer" && e.data.status === "delta").map((e) => e.data.content);
    expect(answer.join("")).toBe("4");
    expect(
      fake()
        .chatRequests()
        .filter((r) => r.body?.format === "json"),
    ).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ mode: "json", model: "gemma:2b" });
    const loop = fake().chatRequests()[0]?.body;
    expect(loop.format).toBe("json");
    expect(loop.tools).toBeUndefined();
    expect(loop.messages[0].content).toContain('"type":"tool_call"');
    expect(steps(events)).toContainEqual(expect.objectContaining({ type: "thinking", text: "easy" }));
  });

  it("mode json forces JSON mode on a tool-capable model; mode native on a model without tools is a 400", async () => {
    const id = await newConversation();
    fake().script({ content: '{"type":"final_answer","reasoning":"r","answer":"a"}' });
    const events = await runChat({ conversationId: id, message: "x", mode: "json" });
    expect(events[0]?.data.mode).toBe("json");

    const gemma = await newConversation("gemma:2b");
    const refused = await chat(
      jsonRequest("/api/chat", "POST", { conversationId: gemma, message: "x", mode: "native" }),
    );
    expect(await expectApiError(refused, 400, "bad_request:mode")).toContain("does not support tool calling");
  });

  it("a paging run reads a long page to the end through continue_from", async () => {
    const paragraphs = Array.from({ length: 60 }, (_, i) => `<p>Part ${i}: ${"text ".repeat(30)}</p>`).join("");
    app.web().routes.set("/long", { body: `<article>${paragraphs}</article>` });
    const full = extractHtmlText(`<article>${paragraphs}</article>`).text;
    const url = `${app.web().url}/long`;
    // The scripted model follows next_token until has_more is gone, then answers.
    fake().setDefaultResponder((req: ChatRequestBody) => {
      if (!req.tools?.length) return { content: "Read it all." };
      const last = req.messages?.at(-1);
      if (last?.role !== "tool") return { toolCalls: [{ name: "scrape_url", arguments: { url, max_chars: 3000 } }] };
      const token = parsePageInfo(last.content ?? "").pageInfo?.nextToken;
      return token
        ? { toolCalls: [{ name: "scrape_url", arguments: { continue_from: token, max_chars: 3000 } }] }
        : { content: "done" };
    });
    const id = await newConversation();
    const events = await runChat({ conversationId: id, message: "read the long page" });
    const results = steps(events).filter((s) => s.type === "tool_result");
    expect(results.length).toBeGreaterThan(2);
    expect(results.every((s) => s.ok)).toBe(true);
    expect(results.map((s) => parsePageInfo(String(s.observation)).body).join("")).toBe(full);
    // Each page's footer travels as data too, with where it begins: the cards read it there, never from the text.
    expect(results.map((s) => s.paging ?? null)).toEqual(
      results.map((s) => {
        const { body, pageInfo } = parsePageInfo(String(s.observation));
        return pageInfo && { ...pageInfo, bodyChars: body.length };
      }),
    );
    expect(results.at(-1)?.paging).toBeUndefined();
    expect(events.findLast((e) => e.event === "done")?.event).toBe("done");
  });
});
