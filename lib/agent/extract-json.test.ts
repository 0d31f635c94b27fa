import { describe, expect, it, vi } from "vitest";
import { extractJson, parseLenientJson, repairInvalidEscapes } from "./extract-json";

describe("extractJson finds the object in messy model output", () => {
  it("parses clean JSON directly", () => {
    expect(extractJson('{"type":"final_answer","answer":"42"}')).toEqual({ type: "final_answer", answer: "42" });
  });

  it("repairs invalid escapes such as LaTeX and regex backslashes", () => {
    expect(extractJson('{"answer":"area = \\pi r^2, match \\d+"}')).toEqual({ answer: "area = \\pi r^2, match \\d+" });
    expect(repairInvalidEscapes('"a\\qb"')).toBe('"a\\\\qb"');
  });

  it("keeps valid escapes intact", () => {
    expect(extractJson('{"a":"line\\nnext \\"q\\" \\u00e9"}')).toEqual({ a: 'line\nnext "q" é' });
  });

  it("accepts raw newlines inside strings", () => {
    expect(extractJson('{"answer":"one\ntwo"}')).toEqual({ answer: "one\ntwo" });
  });

  it("reads a ```json fence wrapped in prose", () => {
    expect(
      extractJson('Sure! Here you go:\n```json\n{"type":"tool_call","tool_name":"web_search"}\n```\nHope it helps'),
    ).toEqual({ type: "tool_call", tool_name: "web_search" });
  });

  it("uses the lazy fence when the greedy one spans two blocks", () => {
    const text = '```json\n{"a":1}\n```\nand also\n```json\n{"b":2}\n```';
    expect(extractJson(text)).toEqual({ a: 1 });
  });

  it("finds the first balanced object in prose, ignoring braces inside strings", () => {
    expect(
      extractJson('I think {"answer": "use {braces} and \\"quotes\\"", "n": {"x": 1}} is right. {"later": true}'),
    ).toEqual({ answer: 'use {braces} and "quotes"', n: { x: 1 } });
  });

  it("skips a broken object and takes the next balanced one", () => {
    expect(extractJson('{not json} then {"ok": true}')).toEqual({ ok: true });
  });

  it("repairs trailing commas, single quotes and Python literals", () => {
    expect(extractJson("{'type': 'final_answer', 'answer': \"it's\", 'done': True, 'x': None,}")).toEqual({
      type: "final_answer",
      answer: "it's",
      done: true,
      x: null,
    });
  });

  it("ignores <think> blocks and stray </tool_call> tags", () => {
    expect(extractJson('<think>{"draft": 1}</think>\n<tool_call>{"name":"a"}</tool_call>')).toEqual({ name: "a" });
  });

  it("unwraps an object encoded as a JSON string", () => {
    expect(extractJson(JSON.stringify('{"a":1}'))).toEqual({ a: 1 });
  });

  it.each(["", "no json here", "[1, 2]", '{"unterminated": '])("returns undefined for %j", (text) => {
    expect(extractJson(text)).toBeUndefined();
  });
});

describe("parseLenientJson", () => {
  it("parses a text again only when a repair changed it (each failed parse is a thrown error)", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      // No repair changes this text: one parse, not four.
      expect(parseLenientJson("[get_weather()]")).toBeUndefined();
      expect(parse).toHaveBeenCalledTimes(1);
      parse.mockClear();
      // Only the lenient repair changes Llama 4's call list (escapes are fine): two parses.
      expect(parseLenientJson("[get_weather(city='LA', metric='C')]")).toBeUndefined();
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });
});
