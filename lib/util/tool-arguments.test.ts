import { describe, expect, it } from "vitest";
import { parseToolArguments } from "./tool-arguments";

describe("parseToolArguments", () => {
  it("takes an object as it is", () => {
    const args = { query: "a" };
    expect(parseToolArguments(args)).toEqual({ ok: true, value: args });
  });

  it("reads a JSON string, and a JSON string inside a string", () => {
    expect(parseToolArguments('{"query":"b"}')).toEqual({ ok: true, value: { query: "b" } });
    expect(parseToolArguments(JSON.stringify('{"query":"c"}'))).toEqual({ ok: true, value: { query: "c" } });
  });

  it("nothing, or a blank string, is no arguments", () => {
    for (const input of [undefined, null, "", "  ", JSON.stringify(" ")]) {
      expect(parseToolArguments(input)).toEqual({ ok: true, value: {} });
    }
  });

  it("a string that is not JSON says so", () => {
    expect(parseToolArguments("{not json")).toEqual({ ok: false, error: "arguments are not valid JSON" });
  });

  it("JSON that is no object (an array, a number, null, a string three layers deep) must be an object", () => {
    const deep = JSON.stringify(JSON.stringify('{"a":1}'));
    for (const input of ["[1]", "5", "null", [1], 5, deep]) {
      expect(parseToolArguments(input)).toEqual({ ok: false, error: "arguments must be an object" });
    }
  });
});
