import { describe, expect, it } from "vitest";
import { MAX_TOOL_DESCRIPTION, MAX_TOOL_NAME, qualifyToolNames, trimDescription } from "./naming";

describe("qualifyToolNames", () => {
  it("names a tool server__tool", () => {
    expect([...qualifyToolNames("github", ["create_issue", "list-repos"]).values()]).toEqual([
      "github__create_issue",
      "github__list-repos",
    ]);
  });

  it("replaces characters tool-calling models refuse, and keeps the names unique", () => {
    const names = qualifyToolNames("s", ["get.weather", "get weather", "get_weather", "検索", "🔍", "", "Get_Weather"]);
    expect([...names.values()]).toEqual([
      "s__get_weather",
      "s__get_weather_2",
      "s__get_weather_3",
      "s____",
      "s___",
      "s__tool",
      "s__Get_Weather_4",
    ]);
    for (const name of names.values()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("keeps names within 64 characters, unique even when cut", () => {
    const server = "s".repeat(32);
    const long = ["a".repeat(80), `${"a".repeat(79)}b`];
    const names = [...qualifyToolNames(server, long).values()];
    expect(names.every((name) => name.length <= MAX_TOOL_NAME)).toBe(true);
    expect(new Set(names).size).toBe(2);
    expect(names[1]?.endsWith("_2")).toBe(true);
  });

  it("lists a name the server repeats once", () => {
    expect(qualifyToolNames("s", ["a", "a"]).size).toBe(1);
  });
});

describe("trimDescription", () => {
  it("collapses runs of spaces, keeps paragraphs, and cuts a long text at a word with an ellipsis", () => {
    expect(trimDescription("  Finds   things.\n\n\n\nFast.  ")).toBe("Finds things.\n\nFast.");
    expect(trimDescription(undefined)).toBe("");
    const cut = trimDescription("word ".repeat(500));
    expect(cut.length).toBeLessThanOrEqual(MAX_TOOL_DESCRIPTION);
    expect(cut.endsWith("word…")).toBe(true);
  });
});
