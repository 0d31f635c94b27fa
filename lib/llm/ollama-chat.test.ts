import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { finishReasonOf, parseReplyChunk, toolCallsOf, usageOf } from "./ollama-chat";

const line = (value: unknown) => JSON.stringify(value);

describe("Ollama's reply objects", () => {
  it('throws Ollama\'s own text for an {"error"} line', () => {
    const error = (() => {
      try {
        return parseReplyChunk(line({ error: "model runner has unexpectedly stopped" }));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toContain("model runner has unexpectedly stopped");
    expect((error as AppError).retryable).toBe(true);
  });

  it('does not mistake content that mentions "error" for an error line', () => {
    const text = line({ message: { role: "assistant", content: '{"error": 1}' }, done: false });
    expect(parseReplyChunk(text).message?.content).toBe('{"error": 1}');
  });

  it("a line that is not a JSON object is an upstream error quoting it", () => {
    for (const text of ["<html>", "[1,2]", "null"]) {
      expect(() => parseReplyChunk(text)).toThrow(expect.objectContaining({ code: "upstream:ollama" }));
    }
  });
});

describe("tool calls in a reply", () => {
  it("keeps Ollama's ids and turns arguments sent as a JSON string into an object", () => {
    const calls = toolCallsOf({
      message: {
        tool_calls: [
          { id: "call_aaaa1111", function: { index: 0, name: "web_search", arguments: { query: "a" } } },
          { id: "call_bbbb2222", function: { index: 1, name: "web_search", arguments: '{"query":"b"}' } },
          { id: "call_cccc3333", function: { index: 2, name: "web_search", arguments: "not json" } },
        ],
      },
    });
    expect(calls).toEqual([
      { id: "call_aaaa1111", name: "web_search", arguments: { query: "a" } },
      { id: "call_bbbb2222", name: "web_search", arguments: { query: "b" } },
      { id: "call_cccc3333", name: "web_search", arguments: {} },
    ]);
  });

  it("gives a call without an id a unique one, and drops a call without a name or arguments", () => {
    const calls = toolCallsOf({
      message: {
        tool_calls: [
          { function: { name: "web_search", arguments: { query: "a" } } },
          { function: { name: "web_search", arguments: { query: "b" } } },
          { function: { arguments: { query: "c" } } },
          { function: { name: "web_search" } },
        ],
      },
    });
    expect(calls.map((call) => call.arguments)).toEqual([{ query: "a" }, { query: "b" }]);
    expect(calls[0]?.id).toMatch(/^call_[a-z0-9]{8}$/);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
  });
});

describe("the final reply object", () => {
  it("gives token counts, and the generation time from eval_duration only when asked", () => {
    const done = { done: true, prompt_eval_count: 169, eval_count: 15, eval_duration: 115959084 };
    expect(usageOf(done, true)).toEqual({
      inputTokens: 169,
      outputTokens: 15,
      totalTokens: 184,
      generationMs: 115.959084,
    });
    expect(usageOf(done, false)).toEqual({ inputTokens: 169, outputTokens: 15, totalTokens: 184 });
    expect(usageOf({ done: true }, true)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it("says tool-calls when the reply called a tool, else Ollama's done_reason", () => {
    expect(finishReasonOf({ done_reason: "stop" }, true)).toBe("tool-calls");
    expect(finishReasonOf({ done_reason: "length" }, false)).toBe("length");
    expect(finishReasonOf({}, false)).toBe("other");
  });
});
