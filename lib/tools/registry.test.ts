import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseConfig } from "@/lib/env-config";
import { renderObservation, toolError, toolOk } from "./outcome";
import { defineTool, type ToolContext, ToolRegistry } from "./registry";
import { TRUNCATION_MARKER, truncateOutcome, truncateText } from "./truncate";
import { UrlLeakGuard } from "./url-leak-guard";

const context: ToolContext = {
  conversationId: "c1",
  signal: new AbortController().signal,
  language: "en",
  urlGuard: new UrlLeakGuard(parseConfig({})),
};
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
          return toolOk(args.text.repeat(args.times ?? 1));
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
          return toolOk(JSON.stringify([{ a: 1 }]));
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
          return toolOk("x".repeat(args.size), { nextToken: "TOKEN" });
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
          return toolOk(ctx.conversationId);
        },
      }),
    );
}

/** What the model reads of a call through the registry. */
async function observe(
  tools: ToolRegistry,
  name: string,
  args: unknown,
  ctx: ToolContext = context,
  opts: { maxResultChars: number } = options,
): Promise<string> {
  return renderObservation(await tools.execute(name, args, ctx, opts));
}

describe("ToolRegistry.execute", () => {
  it("takes arguments as an object, a JSON string, or a JSON string inside a string", async () => {
    const tools = registry();
    expect(await observe(tools, "echo", { text: "a" })).toBe("a");
    expect(await observe(tools, "echo", '{"text":"b"}')).toBe("b");
    expect(await observe(tools, "echo", JSON.stringify('{"text":"c"}'))).toBe("c");
    expect(await observe(tools, "list", "")).toBe('[{"a":1}]');
  });

  it("an unknown tool is an unknown_tool failure naming the available ones, read as a JSON error", async () => {
    const outcome = await registry().execute("nope", {}, context, options);
    const message = "Unknown tool: nope. Available tools: echo, list, boom, pager, bound.";
    expect(outcome).toEqual({ ok: false, error: { kind: "unknown_tool", message } });
    expect(renderObservation(outcome)).toBe(JSON.stringify({ error: message }));
  });

  it("invalid arguments are an invalid_args failure naming the field, read as a JSON error", async () => {
    const tools = registry();
    const schema = await tools.execute("echo", { text: 5 }, context, options);
    expect(schema).toMatchObject({ ok: false, error: { kind: "invalid_args" } });
    expect(JSON.parse(renderObservation(schema)).error).toMatch(/^Invalid arguments for echo: text: /);
    expect(await tools.execute("echo", "{not json", context, options)).toEqual(
      toolError("invalid_args", "Invalid arguments for echo: arguments are not valid JSON."),
    );
    expect(await observe(tools, "echo", "[1]")).toBe(
      JSON.stringify({ error: "Invalid arguments for echo: arguments must be an object." }),
    );
  });

  it("an exception is an internal failure instead of a throw, read as a JSON error", async () => {
    const outcome = await registry().execute("boom", {}, context, options);
    expect(outcome).toEqual({ ok: false, error: { kind: "internal", message: "boom failed: kaput" } });
    expect(renderObservation(outcome)).toBe('{"error":"boom failed: kaput"}');
  });

  it("re-throws when the run was aborted, so Stop ends the run", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(registry().execute("boom", {}, { ...context, signal: controller.signal }, options)).rejects.toThrow(
      "kaput",
    );
  });

  it("binds the conversation through the context", async () => {
    expect(await observe(registry(), "bound", {}, { ...context, conversationId: "c42" })).toBe("c42");
  });

  it("cuts a long non-paged result at a boundary with the marker", async () => {
    const outcome = await registry().execute("echo", { text: "word ", times: 2000 }, context, { maxResultChars: 100 });
    expect(outcome.ok).toBe(true);
    const result = renderObservation(outcome);
    expect(result.length).toBeLessThanOrEqual(100);
    expect(result.endsWith(TRUNCATION_MARKER)).toBe(true);
  });

  it("never cuts a paged result: one over the limit becomes a retryable result_too_large failure", async () => {
    const outcome = await registry().execute("pager", { size: 7000 }, context, options);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "result_too_large", retryable: true } });
    const result = JSON.parse(renderObservation(outcome));
    expect(result.retryable).toBe(true);
    expect(result.error).toContain("smaller max_chars");
    expect(await observe(registry(), "pager", { size: 10 })).toBe(
      "xxxxxxxxxx\n\n---page-info---\nhas_more: true\nnext_token: TOKEN",
    );
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

  it("converts a tool's schema to JSON schema once, not on every run", () => {
    const tools = registry();
    const first = tools.specs();
    expect(tools.specs()[0]).toBe(first[0]);
    expect(tools.filtered(["echo"]).specs()[0]).toBe(first[0]);
  });
});

describe("tools described by a JSON schema (MCP)", () => {
  const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
  const seen: unknown[] = [];
  const remote = new ToolRegistry().register({
    name: "fs__read",
    description: "Reads a file",
    paged: false,
    schema: { jsonSchema: parameters },
    async execute(args) {
      seen.push(args);
      return toolOk("read");
    },
  });

  it("gives the model the JSON schema as it is", () => {
    expect(remote.specs()).toEqual([{ name: "fs__read", description: "Reads a file", parameters }]);
  });

  it("passes object arguments that fit the schema on for the tool's server to validate, and refuses what is not an object", async () => {
    expect(await observe(remote, "fs__read", '{"path":"7","extra":true}')).toBe("read");
    expect(seen).toEqual([{ path: "7", extra: true }]);
    expect(await remote.execute("fs__read", "[1]", context, options)).toEqual(
      toolError("invalid_args", "Invalid arguments for fs__read: arguments must be an object."),
    );
    expect(seen).toHaveLength(1);
  });
});

describe("arguments fitted to the tool's schema", () => {
  const parameters = {
    type: "object",
    properties: {
      count: { type: "number" },
      page: { type: "integer" },
      exact: { type: "boolean" },
      tags: { type: "array", items: { type: "string" } },
      filter: { type: "object", properties: { limit: { type: "integer" } } },
    },
    required: ["count"],
  };
  const seen: unknown[] = [];
  const remote = new ToolRegistry().register({
    name: "db__query",
    description: "Queries",
    paged: false,
    schema: { jsonSchema: parameters },
    async execute(args) {
      seen.push(args);
      return toolOk("done");
    },
  });

  it("coerces by the tool's JSON schema where nothing is lost: numbers, booleans, JSON arrays and objects", async () => {
    seen.length = 0;
    const args = { count: "5", page: " 2 ", exact: "true", tags: '["a","b"]', filter: { limit: "3" } };
    expect(await observe(remote, "db__query", args)).toBe("done");
    expect(seen).toEqual([{ count: 5, page: 2, exact: true, tags: ["a", "b"], filter: { limit: 3 } }]);
  });

  it("refuses what cannot be converted without loss with an error naming the parameter, and does not call the tool", async () => {
    seen.length = 0;
    for (const [args, parameter] of [
      [{ count: "five" }, "count"],
      [{ count: 1, page: "2.5" }, "page"],
      [{ count: 1, exact: "yes" }, "exact"],
      [{ count: 1, tags: "a,b" }, "tags"],
      [{ count: 1, filter: { limit: "many" } }, "filter.limit"],
      [{ page: 1 }, "count"],
    ] as const) {
      const outcome = await remote.execute("db__query", args, context, options);
      expect(outcome).toMatchObject({ ok: false, error: { kind: "invalid_args" } });
      expect(renderObservation(outcome)).toContain(`Invalid arguments for db__query: ${parameter}: `);
    }
    expect(seen).toEqual([]);
  });

  it("coerces built-in tools' arguments before their zod schema checks them", async () => {
    expect(await observe(registry(), "echo", { text: "ab", times: "2" })).toBe("abab");
  });
});

describe("truncation of non-paged results", () => {
  it("cuts at a paragraph boundary when one is near the end", () => {
    const text = `${"a".repeat(60)}\n\n${"b".repeat(100)}`;
    expect(truncateText(text, 100)).toBe(`${"a".repeat(60)}\n${TRUNCATION_MARKER}`);
  });

  it("cuts at a word boundary inside a long paragraph", () => {
    const result = truncateText("lorem ipsum ".repeat(50), 80);
    expect(result).toMatch(/^(lorem ipsum )*lorem( ipsum)?\n…\[tool result truncated\]$/);
  });

  it("leaves results within the limit untouched", () => {
    expect(truncateText("short", 10)).toBe("short");
    const outcome = toolOk("short", { nextToken: "T" });
    expect(truncateOutcome(outcome, { maxChars: 100, paged: true })).toBe(outcome);
  });

  it("cuts a long failure's message, not its kind, so what the model reads stays within the limit", () => {
    const quotes = toolError("internal", `boom failed: ${'"quoted" and\nescaped '.repeat(50)}`);
    const cut = truncateOutcome(quotes, { maxChars: 200, paged: true });
    expect(cut).toMatchObject({ ok: false, error: { kind: "internal" } });
    const observation = renderObservation(cut);
    expect(observation.length).toBeLessThanOrEqual(200);
    expect(JSON.parse(observation).error).toMatch(/^boom failed: "quoted" and\n.*…\[tool result truncated\]$/s);
    const plain = truncateOutcome(toolError("fetch_failed", `Failed to fetch ${"x".repeat(300)}`), {
      maxChars: 100,
      paged: true,
    });
    expect(plain).toMatchObject({ ok: false, error: { kind: "fetch_failed" } });
    expect(renderObservation(plain).length).toBeLessThanOrEqual(100);
  });
});
