import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatPagedResult } from "./pagination";
import { defineTool, type ToolContext, ToolRegistry } from "./registry";
import { TRUNCATION_MARKER, truncateToolResult } from "./truncate";

const context: ToolContext = { conversationId: "c1", signal: new AbortController().signal, language: "en" };
const options = { maxResultChars: 6000 };

function registry() {
  return new ToolRegistry()
    .register(
      defineTool({
        name: "echo",
        description: "Echo the text",
        paged: false,
        schema: z.object({ text: z.string(), times: z.number().int().optional() }),
        async execute(args) {
          return args.text.repeat(args.times ?? 1);
        },
      }),
    )
    .register(
      defineTool({
        name: "list",
        description: "A list",
        paged: false,
        schema: z.object({}),
        async execute() {
          return [{ a: 1 }];
        },
      }),
    )
    .register(
      defineTool({
        name: "boom",
        description: "Throws",
        paged: false,
        schema: z.object({}),
        async execute() {
          throw new Error("kaput");
        },
      }),
    )
    .register(
      defineTool({
        name: "pager",
        description: "A paged tool that misbehaves",
        paged: true,
        schema: z.object({ size: z.number() }),
        async execute(args) {
          return formatPagedResult("x".repeat(args.size), "TOKEN");
        },
      }),
    )
    .register(
      defineTool({
        name: "bound",
        description: "Reports its conversation",
        paged: false,
        schema: z.object({}),
        async execute(_args, ctx) {
          return ctx.conversationId;
        },
      }),
    );
}

describe("ToolRegistry.execute (SPEC §11)", () => {
  it("takes arguments as an object, a JSON string, or a JSON string inside a string", async () => {
    const tools = registry();
    expect(await tools.execute("echo", { text: "a" }, context, options)).toBe("a");
    expect(await tools.execute("echo", '{"text":"b"}', context, options)).toBe("b");
    expect(await tools.execute("echo", JSON.stringify('{"text":"c"}'), context, options)).toBe("c");
    expect(await tools.execute("list", "", context, options)).toBe('[{"a":1}]');
  });

  it("returns a JSON error for an unknown tool, naming the available ones", async () => {
    const result = JSON.parse(await registry().execute("nope", {}, context, options));
    expect(result.error).toContain("Unknown tool: nope");
    expect(result.error).toContain("echo, list, boom, pager, bound");
  });

  it("returns a JSON error for invalid arguments, naming the field", async () => {
    const tools = registry();
    expect(JSON.parse(await tools.execute("echo", { text: 5 }, context, options)).error).toMatch(
      /Invalid arguments for echo: text: /,
    );
    expect(JSON.parse(await tools.execute("echo", "{not json", context, options)).error).toContain("not valid JSON");
    expect(JSON.parse(await tools.execute("echo", "[1]", context, options)).error).toContain("must be an object");
  });

  it("turns an exception into a JSON error instead of throwing", async () => {
    expect(JSON.parse(await registry().execute("boom", {}, context, options))).toEqual({ error: "boom failed: kaput" });
  });

  it("re-throws when the run was aborted, so Stop ends the run", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(registry().execute("boom", {}, { ...context, signal: controller.signal }, options)).rejects.toThrow(
      "kaput",
    );
  });

  it("binds the conversation through the context", async () => {
    expect(await registry().execute("bound", {}, { ...context, conversationId: "c42" }, options)).toBe("c42");
  });

  it("cuts a long non-paged result at a boundary with the marker", async () => {
    const result = await registry().execute("echo", { text: "word ", times: 2000 }, context, { maxResultChars: 100 });
    expect(result.length).toBeLessThanOrEqual(100);
    expect(result.endsWith(TRUNCATION_MARKER)).toBe(true);
  });

  it("never cuts a paged result: one over the limit becomes a retryable error", async () => {
    const result = JSON.parse(await registry().execute("pager", { size: 7000 }, context, options));
    expect(result.retryable).toBe(true);
    expect(result.error).toContain("smaller max_chars");
    expect(await registry().execute("pager", { size: 10 }, context, options)).toContain("next_token: TOKEN");
  });

  it("lists tools with JSON schemas for the model, and filters to a subset", () => {
    const specs = registry().specs();
    expect(specs[0]).toEqual({
      name: "echo",
      description: "Echo the text",
      parameters: expect.objectContaining({
        type: "object",
        properties: { text: { type: "string" }, times: expect.objectContaining({ type: "integer" }) },
        required: ["text"],
      }),
    });
    expect(registry().filtered(["list", "ghost", "echo"]).names).toEqual(["list", "echo"]);
  });
});

describe("truncation of non-paged results", () => {
  it("cuts at a paragraph boundary when one is near the end", () => {
    const text = `${"a".repeat(60)}\n\n${"b".repeat(100)}`;
    expect(truncateToolResult(text, { maxChars: 100, paged: false })).toBe(`${"a".repeat(60)}\n${TRUNCATION_MARKER}`);
  });

  it("cuts at a word boundary inside a long paragraph", () => {
    const result = truncateToolResult("lorem ipsum ".repeat(50), { maxChars: 80, paged: false });
    expect(result).toMatch(/^(lorem ipsum )*lorem( ipsum)?\n…\[tool result truncated\]$/);
  });

  it("leaves results within the limit untouched", () => {
    expect(truncateToolResult("short", { maxChars: 10, paged: false })).toBe("short");
  });
});
