import { describe, expect, it } from "vitest";
import { PartialJsonObject } from "./partial-json";

/** Feeds the chunks one by one and collects what each added to `answer`. */
function feed(chunks: string[]) {
  const object = new PartialJsonObject();
  const added = chunks.map((chunk) => object.push(chunk).get("answer") ?? "");
  return { object, added, answer: object.value("answer") };
}

describe("the partial JSON decoder", () => {
  it("decodes a top-level string value as it arrives, chunk by chunk", () => {
    const { added, answer, object } = feed(['{"type":"final_answer","ans', 'wer":"Hel', "lo", '"}']);
    expect(added).toEqual(["", "Hel", "lo", ""]);
    expect(answer).toBe("Hello");
    expect(object.value("type")).toBe("final_answer");
    expect(object.isComplete("answer")).toBe(true);
  });

  it("decodes escapes, even when a chunk ends in the middle of one", () => {
    const json = JSON.stringify({ answer: 'a "quote", a \\ backslash,\n\ta tab / slash' });
    const chunks = json.split("");
    expect(feed(chunks).answer).toBe('a "quote", a \\ backslash,\n\ta tab / slash');
  });

  it("decodes unicode escapes split across chunks, surrogate pairs whole", () => {
    const { added, answer } = feed(['{"answer":"caf\\u00', "e9 \\ud83d", "\\ude00", '!"}']);
    expect(answer).toBe("café 😀!");
    // The high surrogate waits for its pair: no delta ends in half a character.
    expect(added).toEqual(["caf", "é ", "😀", "!"]);
  });

  it("skips nested values and text around the object", () => {
    const { object, answer } = feed(['```json\n{"tool_args":{"answer":"nested"},"answer":"top"}\n```']);
    expect(answer).toBe("top");
    expect([...object.keys]).toEqual(["tool_args", "answer"]);
  });

  it("keeps non-ASCII text written as is", () => {
    expect(feed(['{"answer":"東京は', '日本の首都です"}']).answer).toBe("東京は日本の首都です");
  });
});
