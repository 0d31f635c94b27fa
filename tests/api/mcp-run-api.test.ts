import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as connect } from "@/app/api/admin/mcp/servers/[name]/connect/route";
import { POST as add } from "@/app/api/admin/mcp/servers/route";
import { POST as chat } from "@/app/api/chat/route";
import { PATCH } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { getDb } from "@/lib/db/client";
import { mcpServers } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { getServerMcp, resetServerMcpForTests } from "@/lib/mcp/server-hub";
import type { McpTransportConfig } from "@/lib/mcp/types";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";
import { callTool, TEST_SERVER } from "@/tests/support/mcp";
import { startHttpTestServer } from "@/tests/support/mcp-test-server.mjs";

// The real hub and the SDK test server (stdio and Streamable HTTP), added through the admin API.
const fake = setupFakeOllama();
setupAppEnv(fake);

const stdio = (...args: string[]): McpTransportConfig => ({
  type: "stdio",
  command: process.execPath,
  args: [TEST_SERVER, ...args],
  env: {},
});

async function addServer(name: string, transport: McpTransportConfig): Promise<void> {
  const response = await add(jsonRequest("/api/admin/mcp/servers", "POST", { name, transport }));
  expect(response.status).toBe(201);
}

async function runChat(conversationId: string, message: string): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  return events;
}

const toolResults = (events: ParsedEvent[]) =>
  events.filter((e) => e.event === "step" && e.data.type === "tool_result").map((e) => e.data);

/** The function names a recorded request offered the model. */
const offered = (index: number) =>
  ((fake().chatRequests()[index]?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

beforeEach(async () => {
  // The test server's own tools and the built-ins are over the selection threshold: these runs skip it.
  process.env.TOOL_SELECTION_THRESHOLD = "100";
  // These tests add stdio servers through the API, as an install that allows it does.
  process.env.MCP_STDIO_FROM_UI = "1";
  resetConfigForTests();
  await (await getDb()).delete(mcpServers);
  await resetServerMcpForTests();
});
afterEach(() => {
  delete process.env.TOOL_SELECTION_THRESHOLD;
  delete process.env.MCP_STDIO_FROM_UI;
  resetConfigForTests();
});
afterAll(() => resetServerMcpForTests());

/** Scripts the model to call `tool` once, then answer; returns the run's events. */
async function callThroughChat(tool: string, args: Record<string, unknown>): Promise<ParsedEvent[]> {
  const id = await newConversation();
  fake().script(
    { when: { hasTools: true }, toolCalls: [{ name: tool, arguments: args, id: "call_mcp01" }] },
    { when: { hasTools: true }, content: "Done." },
    { when: { hasTools: false }, content: "The server said it." },
  );
  return runChat(id, "use the server");
}

/** The observation the model read back after the tool call (the tool message of the second request). */
const toolMessageSeen = () =>
  ((fake().chatRequests()[1]?.body.messages ?? []) as { role: string; content: string; tool_name?: string }[]).find(
    (message) => message.role === "tool",
  );

describe("MCP tools in chat runs", () => {
  it("an added stdio server's tool, called by the model, reaches the server and its result reaches the model", async () => {
    await addServer("files", stdio());
    const events = await callThroughChat("files__echo", { text: "ping über 🛰" });
    expect(toolResults(events)).toEqual([
      expect.objectContaining({ tool: "files__echo", ok: true, observation: "ping über 🛰" }),
    ]);
    expect(offered(0)).toContain("files__echo");
    expect(toolMessageSeen()).toMatchObject({ tool_name: "files__echo", content: "ping über 🛰" });
  });

  it("the same over Streamable HTTP", async () => {
    const server = await startHttpTestServer();
    try {
      await addServer("remote", { type: "http", url: server.url, headers: {} });
      const events = await callThroughChat("remote__echo", { text: "over http" });
      expect(toolResults(events)).toEqual([
        expect.objectContaining({ tool: "remote__echo", observation: "over http" }),
      ]);
      const tested = (await (await connect(jsonRequest("", "POST"), params({ name: "remote" }))).json()) as {
        server: { state: { status: string; transportInUse: string } };
      };
      expect(tested.server.state).toMatchObject({ status: "connected", transportInUse: "streamable-http" });
    } finally {
      await resetServerMcpForTests();
      await server.close();
    }
  });

  it("switching a server's group off removes its tools from what the model is offered", async () => {
    await addServer("files", stdio());
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, content: "Hi." });
    await runChat(id, "first");
    expect(offered(0)).toContain("files__echo");

    fake().reset();
    await PATCH(jsonRequest("", "PATCH", { disabledToolGroups: ["mcp:files"] }), params({ id }));
    fake().script({ when: { hasTools: true }, content: "Hi." });
    await runChat(id, "second");
    expect(offered(0).filter((name) => name.startsWith("files__"))).toEqual([]);
    expect(offered(0)).toContain("web_search");
  });

  it("Stop during a slow MCP call sends the server a cancellation", async () => {
    await addServer("files", stdio());
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, toolCalls: [{ name: "files__slow", arguments: { ms: 60_000 } }] });
    const response = await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "wait" }));
    await readEvents(response, (e) => e.event === "step" && e.data.type === "tool_call");
    const tools = await (await getServerMcp(await getDb())).hub.tools(["files"]);
    await expect.poll(async () => (await callTool(tools, "files__in_flight", {})).observation).toBe("1");
    expect((await stop(jsonRequest("", "POST"), params({ id }))).status).toBe(202);
    await waitIdle(fake(), id);
    await expect
      .poll(async () => JSON.parse((await callTool(tools, "files__cancellations", {})).observation).length)
      .toBe(1);
    expect((await callTool(tools, "files__in_flight", {})).observation).toBe("0");
  });

  it("with 20 MCP tools beside the built-ins the run first selects tools from the compact catalogue", async () => {
    delete process.env.TOOL_SELECTION_THRESHOLD;
    resetConfigForTests();
    await addServer("many", stdio("--many"));
    const picked = ["many__tool_07", "web_search"];
    fake().script(
      { when: { hasTools: true }, toolCalls: [{ name: "select_tools", arguments: { tools: picked } }] },
      { when: { hasTools: true }, toolCalls: [{ name: "many__tool_07", arguments: { query: "tides" } }] },
      { when: { hasTools: true }, content: "Done." },
      { when: { hasTools: false }, content: "Answer." },
    );
    const events = await runChat(await newConversation(), "look it up");
    expect(offered(0)).toEqual(["select_tools"]);
    const catalogue = ((fake().chatRequests()[0]?.body.messages ?? []) as { content: string }[]).at(-1)?.content ?? "";
    expect(catalogue).toContain("- many__tool_20:");
    expect(catalogue).toContain("- web_search:");
    expect(offered(1).sort()).toEqual([...picked].sort());
    const selection = events.find((e) => e.event === "step" && e.data.type === "tool_selection");
    // 20 MCP tools, the four built-in ones and `remember`.
    expect(selection?.data).toMatchObject({ total: 25 });
    expect(toolResults(events)).toEqual([expect.objectContaining({ tool: "many__tool_07", ok: true })]);
  });
});
