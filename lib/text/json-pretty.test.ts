import { describe, expect, it } from "vitest";
import { prettyJson } from "./json-pretty";

describe("prettyJson", () => {
  it("indents JSON two spaces a level and keeps empty objects and arrays on one line", () => {
    expect(prettyJson('{"名前":"東京","list":[1,2],"empty":{},"none":[ ]}')).toBe(
      '{\n  "名前": "東京",\n  "list": [\n    1,\n    2\n  ],\n  "empty": {},\n  "none": []\n}',
    );
  });

  it("keeps every digit of a number and every escape of a string", () => {
    const text = '{"id":12345678901234567890123,"big":1e400,"s":"a\\"b\\\\ \\u00e9,:{}[]"}';
    const pretty = prettyJson(text);
    expect(pretty).toContain('"id": 12345678901234567890123');
    expect(pretty).toContain('"big": 1e400');
    expect(pretty).toContain('"s": "a\\"b\\\\ \\u00e9,:{}[]"');
    expect(JSON.parse(pretty)).toEqual(JSON.parse(text));
  });

  it("returns text that is not JSON as it is (JSON Lines, comments, a cut-off file)", () => {
    for (const text of ['{"a":1}\n{"a":2}\n', '{"a":1 // note\n}', '{"a":[1,2', ""]) {
      expect(prettyJson(text)).toBe(text);
    }
  });

  it("grows linearly on a deeply nested file (indentation stops deepening)", () => {
    const depth = 50_000;
    const text = `${"[".repeat(depth)}1${"]".repeat(depth)}`;
    const pretty = prettyJson(text);
    expect(pretty.split("\n")).toHaveLength(2 * depth + 1);
    expect(pretty.length).toBeLessThan(text.length * 60);
    expect(pretty.replace(/\s/g, "")).toBe(text);
  });
});
