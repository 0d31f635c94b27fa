import { describe, expect, it } from "vitest";
import { toolOk, withSource } from "@/lib/tools/outcome";
import { harness, INPUT, interruptQueue } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, type ScriptedStream, scriptedLLM } from "@/tests/support/scripted-llm";

describe("synthesis", () => {
  it("streams an answer from the question and the trace, each result cut to SYNTHESIS_TRACE_CHARS", async () => {
    const llm = scriptedLLM({
      chat: [{ toolCalls: [{ name: "scrape_url", arguments: { url: "http://x" } }] }, { content: "draft" }],
      stream: [["Final ", "answer"]],
    });
    const { agent } = harness(llm, fakeToolbox({ scrape_url: () => `${"a".repeat(50)}TAIL` }), {
      limits: { synthesisTraceChars: 50 },
    });
    const history = [
      { role: "user" as const, content: "earlier q" },
      { role: "assistant" as const, content: "earlier a" },
    ];
    const input = { ...INPUT, history };
    const result = await agent.run(input, new AbortController().signal);
    const parts: string[] = [];
    for await (const part of agent.streamAnswer(result, input, new AbortController().signal)) {
      if (part.type === "text") parts.push(part.text);
    }
    expect(parts.join("")).toBe("Final answer");
    const messages = llm.streamCalls[0]?.messages ?? [];
    expect(messages[0]?.content).toContain('no "based on the tool output"');
    expect(messages[0]?.content).toContain("Answer in the language of the question");
    expect(messages.slice(1, 3)).toEqual(history);
    const user = messages.at(-1)?.content ?? "";
    expect(user).toContain("What is new?");
    expect(user).toContain('### 1. scrape_url({"url":"http://x"})');
    expect(user).toContain(`${"a".repeat(50)}…`);
    expect(user).not.toContain("TAIL");
    expect(user).toContain("Draft answer from the research:\ndraft");
  });

  it("synthesis sees every follow-up the run took, in order, after the question", async () => {
    const queue = interruptQueue();
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "web_search", arguments: { query: "first" } }] },
        { toolCalls: [{ name: "web_search", arguments: { query: "second" } }] },
        { content: "draft" },
      ],
      stream: [["Réponse"]],
    });
    let searches = 0;
    const tools = fakeToolbox({
      web_search: () => {
        searches++;
        queue.push(searches === 1 ? "answer in French" : "as a table");
        return "results";
      },
    });
    const { agent } = harness(llm, tools, { interrupts: queue });
    const result = await agent.run(INPUT, new AbortController().signal);
    expect(result.followUps).toEqual(["answer in French", "as a table"]);
    for await (const _ of agent.streamAnswer(result, INPUT, new AbortController().signal)) {
      // drain
    }
    const user = llm.streamCalls[0]?.messages.at(-1)?.content ?? "";
    expect(user).toContain(
      "Question:\nWhat is new?\n\nThe user added while the research ran, in this order:\n- answer in French\n- as a table",
    );
  });

  it("says so when the question with its research had to be cut to fit the answer's model", async () => {
    const read = (n: number) => ({ toolCalls: [{ name: "scrape_url", arguments: { url: `http://x/${n}` } }] });
    const llm = scriptedLLM({ chat: [read(1), read(2), read(3), { content: "draft" }] });
    const writer = scriptedLLM({ contextLength: 2048, stream: [["Answer."]] });
    const { agent, steps } = harness(llm, fakeToolbox({ scrape_url: () => "r".repeat(2000) }), {
      synthesisLlm: writer,
    });
    const result = await agent.run(INPUT, new AbortController().signal);
    for await (const _ of agent.streamAnswer(result, INPUT, new AbortController().signal)) {
      // drain
    }
    const sent = writer.streamCalls[0]?.messages.at(-1)?.content ?? "";
    expect(sent).toContain("[Truncated]");
    expect(steps.at(-1)).toMatchObject({
      type: "notice",
      iteration: 0,
      about: { code: "cut", what: "research", kept: sent.length },
      text: expect.stringMatching(/^The question with its research was too long .* characters were kept\.$/),
    });
  });

  it("uses the Japanese synthesiser prompt for a Japanese conversation", async () => {
    const llm = scriptedLLM({ chat: [{ content: "答え" }], stream: [["はい"]] });
    const { agent } = harness(llm, fakeToolbox({}), { language: "ja" });
    const input = { ...INPUT, question: "新しいことは？" };
    const result = await agent.run(input, new AbortController().signal);
    for await (const _ of agent.streamAnswer(result, input, new AbortController().signal)) {
      // drain
    }
    expect(llm.streamCalls[0]?.messages[0]?.content).toContain("質問と同じ言語で答えてください");
    expect(llm.streamCalls[0]?.messages.at(-1)?.content).toContain("（ツールは使われませんでした。）");
  });

  it("numbers the pages read once each, in the order read, and lists them for synthesis so [n] matches", async () => {
    const read = (url: string, title: string) => withSource(toolOk(`text of ${url}`), { url, title });
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "web_search", arguments: { query: "q" } }] },
        { toolCalls: [{ name: "scrape_url", arguments: { url: "https://b.test/" } }] },
        { toolCalls: [{ name: "scrape_url", arguments: { url: "https://a.test/" } }] },
        { toolCalls: [{ name: "scrape_url", arguments: { url: "https://b.test/" } }] },
        { content: "draft" },
      ],
      stream: [["Answer [1]"]],
    });
    const { agent, steps } = harness(
      llm,
      fakeToolbox({
        web_search: () => ({ ...toolOk("[]"), results: [{ title: "T", url: "https://r.test/", snippet: "s" }] }),
        scrape_url: (args) => read(String(args.url), String(args.url).includes("a.") ? "Page A" : "Page B"),
      }),
    );
    const result = await agent.run(INPUT, new AbortController().signal);
    expect(result.sources).toEqual([
      { n: 1, url: "https://b.test/", title: "Page B" },
      { n: 2, url: "https://a.test/", title: "Page A" },
    ]);
    const results = steps.filter((step) => step.type === "tool_result");
    expect(results.map((step) => step.source?.n ?? null)).toEqual([null, 1, 2, 1]);
    expect(results[0]?.results).toEqual([{ title: "T", url: "https://r.test/", snippet: "s" }]);
    for await (const _ of agent.streamAnswer(result, INPUT, new AbortController().signal)) {
      // drain
    }
    const user = llm.streamCalls[0]?.messages.at(-1)?.content ?? "";
    expect(user).toContain('### 2. scrape_url({"url":"https://b.test/"}) [1]');
    expect(user).toContain('### 3. scrape_url({"url":"https://a.test/"}) [2]');
    expect(user).toContain("[1] Page B — https://b.test/\n[2] Page A — https://a.test/");
    expect(llm.streamCalls[0]?.messages[0]?.content).toContain("like [1] or [2][3]");
  });

  it("a failed read is not a source", async () => {
    const llm = scriptedLLM({
      chat: [{ toolCalls: [{ name: "scrape_url", arguments: { url: "https://x.test/" } }] }, { content: "draft" }],
    });
    const { run } = harness(
      llm,
      fakeToolbox({
        scrape_url: () =>
          withSource(
            { ok: false, error: { kind: "fetch_failed", message: "no" } },
            { url: "https://x.test/", title: "X" },
          ),
      }),
    );
    expect((await run()).sources).toEqual([]);
  });
});

describe("a synthesis that fails", () => {
  const failure = new Error("model runner has unexpectedly stopped");

  async function synthesize(script: { chat: ScriptedChat[]; stream: ScriptedStream[] }) {
    const llm = scriptedLLM(script);
    const { agent } = harness(llm, fakeToolbox({ web_search: () => "results" }));
    const signal = new AbortController().signal;
    const result = await agent.run(INPUT, signal);
    const texts: string[] = [];
    const outcome = await agent.synthesize(result, INPUT, signal, {
      onText: (text) => texts.push(text),
      onThinking: () => {},
      onThought: () => {},
    });
    return { outcome, texts };
  }

  const toolThenDraft: ScriptedChat[] = [
    { toolCalls: [{ name: "web_search", arguments: { query: "q" } }] },
    { content: "The draft." },
  ];

  it("keeps exactly the text that streamed before it failed, as interrupted, never the draft", async () => {
    const { outcome, texts } = await synthesize({
      chat: toolThenDraft,
      stream: [{ chunks: ["Partial ", "answer"], failAfter: failure }],
    });
    expect(outcome).toMatchObject({ ended: "interrupted", text: "Partial answer", failure });
    expect(texts).toEqual(["Partial ", "answer"]);
  });

  it("shows the loop's draft, marked as a draft, only when nothing streamed", async () => {
    const { outcome, texts } = await synthesize({ chat: toolThenDraft, stream: [failure] });
    expect(outcome).toMatchObject({ ended: "draft", text: "The draft.", failure });
    expect(texts).toEqual(["The draft."]);
  });

  it("fails with nothing to show when nothing streamed and the loop wrote no draft", async () => {
    const { outcome, texts } = await synthesize({
      chat: [toolThenDraft[0] as ScriptedChat, { content: "  " }],
      stream: [failure],
    });
    expect(outcome).toMatchObject({ ended: "failed", text: "", failure });
    expect(texts).toEqual([]);
  });

  it("is thrown, not an outcome, when Stop aborted it", async () => {
    const llm = scriptedLLM({ chat: toolThenDraft, stream: [["never"]] });
    const { agent } = harness(llm, fakeToolbox({ web_search: () => "results" }));
    const controller = new AbortController();
    const result = await agent.run(INPUT, controller.signal);
    controller.abort();
    const sink = { onText: () => {}, onThinking: () => {}, onThought: () => {} };
    await expect(agent.synthesize(result, INPUT, controller.signal, sink)).rejects.toThrow();
  });
});
