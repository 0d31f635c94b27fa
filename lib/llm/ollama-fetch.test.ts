import { describe, expect, it } from "vitest";
import { fixChatRequestBody } from "./ollama-fetch";

const patch = { numCtx: 8192, think: false };

describe("request repair", () => {
  it("moves sampling settings from the top level into options and sends num_ctx there", () => {
    const fixed = fixChatRequestBody(
      { model: "m", messages: [], temperature: 0.2, top_p: 0.9, max_output_tokens: 128, tool_choice: "auto" },
      patch,
    );
    expect(fixed).not.toHaveProperty("temperature");
    expect(fixed).not.toHaveProperty("top_p");
    expect(fixed).not.toHaveProperty("max_output_tokens");
    expect(fixed).not.toHaveProperty("tool_choice");
    expect(fixed.options).toEqual({ temperature: 0.2, top_p: 0.9, num_predict: 128, num_ctx: 8192 });
  });

  it("keeps options the provider already sent and lets them win over top-level copies", () => {
    const fixed = fixChatRequestBody({ model: "m", temperature: 1, options: { temperature: 0, seed: 42 } }, patch);
    expect(fixed.options).toEqual({ temperature: 0, seed: 42, num_ctx: 8192 });
  });

  it("sends think exactly as decided for the model, overriding the provider's default", () => {
    expect(fixChatRequestBody({ model: "m", think: false }, { ...patch, think: true }).think).toBe(true);
    expect(fixChatRequestBody({ model: "m", think: true }, patch).think).toBe(false);
  });

  it("sets format when the call asks for JSON or a schema, and leaves it alone otherwise", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect(fixChatRequestBody({ model: "m" }, { ...patch, format: "json" }).format).toBe("json");
    expect(fixChatRequestBody({ model: "m" }, { ...patch, format: schema }).format).toEqual(schema);
    expect(fixChatRequestBody({ model: "m" }, patch)).not.toHaveProperty("format");
  });

  it("adds tool_name to tool messages by matching tool_call_id to the assistant's calls", () => {
    const fixed = fixChatRequestBody(
      {
        model: "m",
        messages: [
          { role: "user", content: "q" },
          {
            role: "assistant",
            content: "",
            tool_calls: [
              { id: "call_a", type: "function", function: { name: "web_search", arguments: { query: "x" } } },
              { id: "call_b", type: "function", function: { name: "scrape_url", arguments: '{"url":"http://e"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_b", content: "page" },
          { role: "tool", tool_call_id: "call_a", content: "results" },
        ],
      },
      patch,
    );
    const messages = fixed.messages as Record<string, unknown>[];
    expect(messages[2]).toMatchObject({ role: "tool", tool_call_id: "call_b", tool_name: "scrape_url" });
    expect(messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_a", tool_name: "web_search" });
    const calls = (messages[1] as { tool_calls: { function: { arguments: unknown; index: number } }[] }).tool_calls;
    expect(calls[1]?.function.arguments).toEqual({ url: "http://e" });
    expect(calls.map((call) => call.function.index)).toEqual([0, 1]);
  });

  it("turns a non-string content (the provider's [] for an image-only turn) into a string", () => {
    const fixed = fixChatRequestBody(
      { model: "m", messages: [{ role: "user", content: [], images: ["aGk="] }] },
      patch,
    );
    expect((fixed.messages as { content: unknown }[])[0]?.content).toBe("");
  });
});
