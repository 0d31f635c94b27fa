import { describe, expect, it } from "vitest";
import { type ChatRequest, chatRequestBody } from "./ollama-request";

const request: ChatRequest = {
  model: "m",
  messages: [{ role: "user", content: "q" }],
  stream: true,
  numCtx: 8192,
  think: false,
};

describe("the /api/chat body", () => {
  it("sends num_ctx and temperature in options and nothing Ollama ignores at the top level", () => {
    const body = chatRequestBody({ ...request, temperature: 0.2 });
    expect(body.options).toEqual({ num_ctx: 8192, temperature: 0.2 });
    for (const ignored of ["temperature", "top_p", "max_output_tokens", "tool_choice"]) {
      expect(body).not.toHaveProperty(ignored);
    }
    expect(chatRequestBody(request).options).toEqual({ num_ctx: 8192 });
  });

  it("sends a chat's own sampling settings in options, and a call's own temperature wins", () => {
    const sampling = { temperature: 1.3, top_p: 0.5, seed: 7 };
    expect(chatRequestBody({ ...request, sampling }).options).toEqual({ num_ctx: 8192, ...sampling });
    expect(chatRequestBody({ ...request, sampling, temperature: 0.2 }).options).toEqual({
      num_ctx: 8192,
      temperature: 0.2,
      top_p: 0.5,
      seed: 7,
    });
  });

  it("sends think exactly as decided for the model", () => {
    expect(chatRequestBody({ ...request, think: true }).think).toBe(true);
    expect(chatRequestBody(request).think).toBe(false);
  });

  it("sets format when the call asks for JSON or a schema, and leaves it out otherwise", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect(chatRequestBody({ ...request, format: "json" }).format).toBe("json");
    expect(chatRequestBody({ ...request, format: schema }).format).toEqual(schema);
    expect(chatRequestBody(request)).not.toHaveProperty("format");
  });

  it("offers tools as Ollama's function definitions, and no tools key when there are none", () => {
    const parameters = { type: "object", properties: { query: { type: "string" } } };
    const body = chatRequestBody({ ...request, tools: [{ name: "web_search", description: "Search", parameters }] });
    expect(body.tools).toEqual([
      { type: "function", function: { name: "web_search", description: "Search", parameters } },
    ]);
    expect(chatRequestBody({ ...request, tools: [] })).not.toHaveProperty("tools");
  });

  it("sends tool calls with their ids, index and object arguments, and tool results with tool_name", () => {
    const body = chatRequestBody({
      ...request,
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: "",
          reasoning: "Search both.",
          toolCalls: [
            { id: "call_a", name: "web_search", arguments: { query: "x" } },
            { id: "call_b", name: "scrape_url", arguments: { url: "http://e" } },
          ],
        },
        { role: "tool", content: "page", toolCallId: "call_b", toolName: "scrape_url" },
        { role: "tool", content: "results", toolCallId: "call_a", toolName: "web_search" },
      ],
    });
    expect(body.messages).toEqual([
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "",
        thinking: "Search both.",
        tool_calls: [
          { id: "call_a", function: { index: 0, name: "web_search", arguments: { query: "x" } } },
          { id: "call_b", function: { index: 1, name: "scrape_url", arguments: { url: "http://e" } } },
        ],
      },
      { role: "tool", content: "page", tool_name: "scrape_url", tool_call_id: "call_b" },
      { role: "tool", content: "results", tool_name: "web_search", tool_call_id: "call_a" },
    ]);
  });

  it("sends an image-only user turn with a string content and the images as base64", () => {
    const body = chatRequestBody({ ...request, messages: [{ role: "user", content: "", images: ["aGk="] }] });
    expect(body.messages).toEqual([{ role: "user", content: "", images: ["aGk="] }]);
  });
});
