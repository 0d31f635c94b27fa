import { describe, expect, it } from "vitest";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { cleanTitle, suggestTitle } from "./title";

describe("automatic title from the first exchange", () => {
  it.each([
    ['"Rust vs Go for CLIs."', "Rust vs Go for CLIs"],
    ["Title: **Tokyo trip plan**\nextra line", "Tokyo trip plan"],
    ["「東京旅行の計画」。", "東京旅行の計画"],
    ["<think>hmm</think>\n\nWeather in Oslo", "Weather in Oslo"],
    ["   ", null],
  ])("cleans %j to %j", (raw, title) => {
    expect(cleanTitle(raw)).toBe(title);
  });

  it("bounds the length", () => {
    expect(cleanTitle("word ".repeat(40))?.length).toBeLessThanOrEqual(80);
  });

  it("asks the model in the question's language and gives null on failure", async () => {
    const llm = scriptedLLM({ chat: [{ content: "Ollama overview" }, new Error("down")] });
    expect(await suggestTitle(llm, { question: "What is Ollama?", answer: "A runtime.", language: "en" })).toBe(
      "Ollama overview",
    );
    expect(llm.chatCalls[0]?.messages[0]?.content).toContain("Question:\nWhat is Ollama?");
    expect(await suggestTitle(llm, { question: "q", answer: "a", language: "ja" })).toBeNull();
  });
});

describe("the title's call", () => {
  it("fits its model's context: a long Japanese exchange is cut, not sent over the context", async () => {
    const llm = scriptedLLM({ contextLength: 1024, chat: [{ content: "長い質問" }] });
    const title = await suggestTitle(llm, { question: "質".repeat(1000), answer: "答".repeat(1500), language: "ja" });
    expect(llm.overContext).toEqual([]);
    expect(title).toBe("長い質問");
  });
});
