import { describe, expect, it } from "vitest";
import { titleFromMessage } from "./conversation-title";

describe("a conversation's title before the model's", () => {
  it("titles from the first message: one line, cut at a word", () => {
    expect(titleFromMessage("  What is\nthe   weather? ")).toBe("What is the weather?");
    const long = titleFromMessage("word ".repeat(40));
    expect(long.length).toBeLessThanOrEqual(81);
    expect(long.endsWith("word…")).toBe(true);
  });
});
