import { afterEach, describe, expect, it, vi } from "vitest";
import { callTool, HUB_OPTIONS, httpServer, stdioServer } from "@/tests/support/mcp";
import { startHttpTestServer } from "@/tests/support/mcp-test-server.mjs";
import { McpReplyTooLarge, messageCounter } from "./bounded-reply";
import { createMcpHub } from "./hub";
import { MAX_SCHEMA_STEPS } from "./schema";
import type { McpHub } from "./types";

/** What a hostile MCP server cannot do to the app (docs/security.md, "MCP servers"). */

const hubs: McpHub[] = [];
const servers: { close(): Promise<void> }[] = [];
/** A cap well under the hostile replies (512 KB lists, results of `large`). */
const MAX_MESSAGE_BYTES = 256 * 1024;

function hub() {
  const created = createMcpHub({ ...HUB_OPTIONS, maxMessageBytes: MAX_MESSAGE_BYTES, retryBaseMs: 60_000 });
  hubs.push(created);
  return created;
}
async function http(options: Parameters<typeof startHttpTestServer>[0] = {}) {
  const server = await startHttpTestServer(options);
  servers.push(server);
  return server.url;
}
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((each) => each.close()));
  await Promise.all(servers.splice(0).map((each) => each.close()));
  vi.restoreAllMocks();
});

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describe("a tool whose input schema is too costly to read is dropped, with its reason shown and logged", () => {
  it("the schema bomb's tool is not offered; the server's other tools are, and the state names the dropped one", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const mcp = hub();
    mcp.configure([stdioServer("hostile", { args: ["--hostile", "schema-bomb"] })]);
    expect(names(await mcp.tools(["hostile"]))).toEqual(["hostile__ok"]);
    const [state] = mcp.states();
    expect(state).toMatchObject({ status: "connected", tools: [{ name: "ok" }] });
    expect(state?.droppedTools).toEqual([
      { name: "bomb", reason: expect.stringContaining(`more than ${MAX_SCHEMA_STEPS} steps`) },
    ]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("hostile: the tool bomb is not offered."));
  });
});

describe("an MCP reply over MCP_MAX_MESSAGE_MB is refused before it is held, and closes the connection", () => {
  it("an oversized tools/list over stdio: the server adds no tools and its state says why", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("bulky", { args: ["--hostile", "huge-list"] })]);
    expect(await mcp.tools(["bulky"])).toEqual([]);
    const [state] = mcp.states();
    expect(state).toMatchObject({ status: "error", tools: [] });
    expect(state?.error).toContain(`maximum size of ${MAX_MESSAGE_BYTES} bytes`);
  });

  it("an oversized tools/list over Streamable HTTP: the server adds no tools and its state says why", async () => {
    const mcp = hub();
    mcp.configure([httpServer("bulky", await http({ hostile: "huge-list" }))]);
    expect(await mcp.tools(["bulky"])).toEqual([]);
    const [state] = mcp.states();
    expect(state).toMatchObject({ status: "error", tools: [] });
    expect(state?.error).toContain("over 0.3 MB (MCP_MAX_MESSAGE_MB)");
  });

  it("an oversized result over stdio is a tool_failed observation, the connection is closed with the reason", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    expect(await callTool(tools, "test__large", { chars: 1000 })).toMatchObject({ ok: true });
    const outcome = await callTool(tools, "test__large", { chars: 2 * MAX_MESSAGE_BYTES });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool_failed" } });
    const [state] = mcp.states();
    expect(state).toMatchObject({ status: "error" });
    expect(state?.error).toContain(`maximum size of ${MAX_MESSAGE_BYTES} bytes`);
  });

  it("an oversized result over Streamable HTTP is a tool_failed observation naming the cap, the connection closed", async () => {
    const mcp = hub();
    mcp.configure([httpServer("test", await http())]);
    const tools = await mcp.tools(["test"]);
    expect(await callTool(tools, "test__large", { chars: 1000 })).toMatchObject({ ok: true });
    const outcome = await callTool(tools, "test__large", { chars: 2 * MAX_MESSAGE_BYTES });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool_failed" } });
    expect(outcome.observation).toContain("(MCP_MAX_MESSAGE_MB)");
    const [state] = mcp.states();
    expect(state).toMatchObject({ status: "error", error: expect.stringContaining("(MCP_MAX_MESSAGE_MB)") });
  });
});

describe("a server that keeps saying its tools changed", () => {
  it("is listed once more however many list_changed arrive while a listing runs, not once per notification", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("noisy", { args: ["--hostile", "list-spam"] })]);
    const tools = await mcp.tools(["noisy"]);
    const lists = async () => Number((await callTool(tools, "noisy__list_count", {})).observation);
    expect(await lists()).toBe(1);
    await callTool(tools, "noisy__spam", { count: 200 });
    // The first notification's listing, then one for all that came while it ran.
    await expect.poll(lists).toBeGreaterThanOrEqual(3);
    await callTool(tools, "noisy__ok", {});
    expect(await lists()).toBe(3);
  });
});

describe("messageCounter", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("counts a JSON body whole, across chunks, and refuses the byte past the cap", () => {
    const count = messageCounter(10);
    count(bytes("01234"));
    count(bytes("56789"));
    expect(() => count(bytes("x"))).toThrow(McpReplyTooLarge);
  });

  it("counts an event stream per event: a blank line (\\n\\n or \\r\\n\\r\\n, split across chunks too) starts afresh", () => {
    const count = messageCounter(12);
    for (let i = 0; i < 50; i++) {
      count(bytes("data: abc\n"));
      count(bytes(i % 2 ? "\n" : "\r\n"));
    }
    count(bytes("data: ab\r"));
    count(bytes("\n\r"));
    count(bytes("\n"));
    expect(() => count(bytes("data: abcdefgh\n"))).toThrow(McpReplyTooLarge);
  });
});
