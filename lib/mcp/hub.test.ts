import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/env-config";
import { TRUNCATION_MARKER } from "@/lib/tools/truncate";
import { callTool, HUB_OPTIONS, httpServer, stdioServer } from "@/tests/support/mcp";
import { startHttpTestServer } from "@/tests/support/mcp-test-server.mjs";
import { createMcpHub, mcpHubOptions } from "./hub";
import type { McpHub } from "./types";

const hubs: McpHub[] = [];
function hub(options: Partial<typeof HUB_OPTIONS> & { retryBaseMs?: number } = {}) {
  const created = createMcpHub({ ...HUB_OPTIONS, ...options });
  hubs.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((each) => each.close()));
});

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("mcpHubOptions", () => {
  it("takes the hub's limits from MCP_CALL_TIMEOUT_S, MCP_CONNECT_TIMEOUT_S, MCP_MAX_ARTIFACT_MB and MCP_MAX_MESSAGE_MB", () => {
    expect(mcpHubOptions(parseConfig({}))).toEqual({
      callTimeoutMs: 60_000,
      connectTimeoutMs: 15_000,
      maxArtifactBytes: 2 * 1024 * 1024,
      maxMessageBytes: 8 * 1024 * 1024,
    });
    const env = {
      MCP_CALL_TIMEOUT_S: "5",
      MCP_CONNECT_TIMEOUT_S: "2",
      MCP_MAX_ARTIFACT_MB: "1",
      MCP_MAX_MESSAGE_MB: "3",
    };
    expect(mcpHubOptions(parseConfig(env))).toEqual({
      callTimeoutMs: 5000,
      connectTimeoutMs: 2000,
      maxArtifactBytes: 1024 * 1024,
      maxMessageBytes: 3 * 1024 * 1024,
    });
    expect(() => parseConfig({ MCP_CALL_TIMEOUT_S: "0" })).toThrow("MCP_CALL_TIMEOUT_S");
  });
});

describe("MCP hub over stdio", () => {
  it("starts a server only when its tools are asked for, and lists them as server__tool", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    expect(mcp.states()).toEqual([{ name: "test", status: "idle", tools: [] }]);
    const tools = await mcp.tools(["test"]);
    expect(names(tools)).toEqual(expect.arrayContaining(["test__echo", "test__slow", "test__add_tool"]));
    const echo = tools.find((tool) => tool.name === "test__echo");
    expect(echo?.description).toBe("Echoes the text back.");
    expect(echo?.schema).toEqual({
      jsonSchema: {
        type: "object",
        properties: { text: { type: "string", description: "What to echo" } },
        required: ["text"],
      },
    });
    const [state] = mcp.states();
    expect(state).toMatchObject({ status: "connected", transportInUse: "stdio" });
    expect(state?.tools).toContainEqual({
      name: "echo",
      qualifiedName: "test__echo",
      description: "Echoes the text back.",
      enabled: true,
      annotations: { readOnlyHint: true },
      approval: "allow",
    });
  });

  it("a tool not marked read-only asks before it runs; the admin's policy per server and per tool overrides that", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    const policy = (name: string) => tools.find((tool) => tool.name === name)?.consent?.policy();
    const approvals = () =>
      Object.fromEntries((mcp.states()[0]?.tools ?? []).map((tool) => [tool.name, tool.approval]));
    expect(tools.find((tool) => tool.name === "test__write_note")?.consent).toMatchObject({
      server: "test",
      toolName: "write_note",
      annotations: { destructiveHint: true },
    });
    expect([policy("test__echo"), policy("test__write_note"), policy("test__add_tool")]).toEqual([
      "allow",
      "ask",
      "ask",
    ]);
    expect(approvals()).toMatchObject({ echo: "allow", write_note: "ask", add_tool: "ask" });
    // Changed while runs hold the tools: their next call reads the new policy.
    mcp.configure([stdioServer("test", { toolApproval: { default: "deny", tools: { write_note: "allow" } } })]);
    expect([policy("test__echo"), policy("test__write_note"), policy("test__add_tool")]).toEqual([
      "deny",
      "allow",
      "deny",
    ]);
    expect(approvals()).toMatchObject({ echo: "deny", write_note: "allow", add_tool: "deny" });
  });

  it("calls a tool and reads its text as the observation; the connection stays open for the next call", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    const first = await callTool(tools, "test__pid", {});
    expect(await callTool(tools, "test__echo", { text: "héllo ✓" })).toMatchObject({ ok: true, output: "héllo ✓" });
    expect((await callTool(tools, "test__pid", {})).observation).toBe(first.observation);
  });

  it("an isError result is a tool_failed error whose observation is the server's text", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const outcome = await callTool(await mcp.tools(["test"]), "test__fail", { message: "quota exceeded" });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool_failed" } });
    expect(outcome.observation).toBe("test__fail failed: quota exceeded");
  });

  it("a protocol error (arguments the server rejects) is a tool_failed error, not a throw", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    // The type fits the schema (checked here first); the value is one the server's enum refuses.
    const outcome = await callTool(await mcp.tools(["test"]), "test__page", { format: "pdf" });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool_failed" } });
    expect(outcome.observation).toMatch(/^test__page failed: /);
  });

  it("a number written as a string reaches the MCP server as a number (its own schema would refuse the string)", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    expect(await callTool(await mcp.tools(["test"]), "test__slow", { ms: "1" })).toMatchObject({ ok: true });
  });

  it("a call over MCP_CALL_TIMEOUT_S is a timeout error and is cancelled on the server", async () => {
    const mcp = hub({ callTimeoutMs: 300 });
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    const outcome = await callTool(tools, "test__slow", { ms: 30_000 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(outcome.observation).toContain("did not answer within 0.3 s");
    await expect
      .poll(async () => JSON.parse((await callTool(tools, "test__cancellations", {})).observation))
      .toHaveLength(1);
  });

  it("stopping the run sends notifications/cancelled to the server and rethrows the abort", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    const controller = new AbortController();
    const call = callTool(tools, "test__slow", { ms: 30_000 }, { signal: controller.signal });
    await expect.poll(async () => (await callTool(tools, "test__in_flight", {})).observation).toBe("1");
    controller.abort(new Error("stopped by the user"));
    await expect(call).rejects.toThrow("stopped by the user");
    await expect
      .poll(async () => JSON.parse((await callTool(tools, "test__cancellations", {})).observation))
      .toEqual([expect.objectContaining({ reason: expect.stringContaining("stopped by the user") })]);
  });

  it("cuts a large result like a built-in tool's", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const outcome = await callTool(
      await mcp.tools(["test"]),
      "test__large",
      { chars: 50_000 },
      { maxResultChars: 500 },
    );
    expect(outcome.ok).toBe(true);
    expect(outcome.observation.length).toBeLessThanOrEqual(500);
    expect(outcome.observation.endsWith(TRUNCATION_MARKER)).toBe(true);
  });

  it("an image result is an artifact (base64) beside the text", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const outcome = await callTool(await mcp.tools(["test"]), "test__image", {});
    expect(outcome).toMatchObject({
      ok: true,
      output: "A red square.",
      artifact: { filename: "test__image.png", mimeType: "image/png" },
    });
    const content = outcome.ok ? (outcome.artifact?.content ?? "") : "";
    expect(Buffer.from(content, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  it("an embedded HTML or Markdown resource is an artifact named after its URI", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    expect(await callTool(tools, "test__page", {})).toMatchObject({
      ok: true,
      output: "",
      artifact: { filename: "report.html", mimeType: "text/html", content: "<h1>Report</h1><p>All good.</p>" },
    });
    expect(await callTool(tools, "test__page", { format: "markdown" })).toMatchObject({
      artifact: { filename: "report.md", mimeType: "text/markdown", content: "# Report\n\nAll good." },
    });
  });

  it("a list_changed notification re-lists the server's tools", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const tools = await mcp.tools(["test"]);
    expect(names(tools)).not.toContain("test__fresh");
    await callTool(tools, "test__add_tool", { name: "fresh" });
    await expect.poll(async () => names(await mcp.tools(["test"]))).toContain("test__fresh");
    expect(mcp.states()[0]?.tools.map((tool) => tool.name)).toContain("fresh");
  });

  it("gives a stdio server only its configured env and PATH/HOME/LANG, never the app's own variables", async () => {
    process.env.OLLAMA_WEB_TEST_SECRET = "app-secret";
    try {
      const mcp = hub();
      mcp.configure([stdioServer("test", { env: { API_KEY: "k-123" } })]);
      const tools = await mcp.tools(["test"]);
      const env = async (name: string) => (await callTool(tools, "test__env", { name })).observation;
      expect(await env("OLLAMA_WEB_TEST_SECRET")).toBe("(unset)");
      expect(await env("API_KEY")).toBe("k-123");
      expect(await env("PATH")).toBe(process.env.PATH);
    } finally {
      delete process.env.OLLAMA_WEB_TEST_SECRET;
    }
  });

  it("leaves out tools an admin switched off, and a disabled server entirely", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test", { disabledTools: ["crash", "env"] }), stdioServer("off", { enabled: false })]);
    const tools = names(await mcp.tools(["test", "off"]));
    expect(tools).toContain("test__echo");
    expect(tools).not.toContain("test__crash");
    expect(tools).not.toContain("test__env");
    expect(tools.some((name) => name.startsWith("off__"))).toBe(false);
    const [test, off] = mcp.states();
    expect(test?.tools.find((tool) => tool.name === "env")?.enabled).toBe(false);
    expect(off).toEqual({ name: "off", status: "disabled", tools: [] });
  });

  it("closes a server that configure() removes or changes, and keeps one whose tool switches changed", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("a"), stdioServer("b")]);
    const tools = await mcp.tools(["a", "b"]);
    const pidA = Number((await callTool(tools, "a__pid", {})).observation);
    const pidB = Number((await callTool(tools, "b__pid", {})).observation);
    mcp.configure([stdioServer("b", { disabledTools: ["echo"] })]);
    await expect.poll(() => isAlive(pidA)).toBe(false);
    expect(isAlive(pidB)).toBe(true);
    expect(mcp.states()).toMatchObject([{ name: "b", status: "connected" }]);
    mcp.configure([stdioServer("b", { env: { CHANGED: "1" } })]);
    await expect.poll(() => isAlive(pidB)).toBe(false);
    expect(mcp.states()).toMatchObject([{ name: "b", status: "idle" }]);
    // A run that still holds the old definitions is told the server went away, without a throw.
    expect(await callTool(tools, "a__echo", { text: "x" })).toMatchObject({
      ok: false,
      error: { kind: "tool_failed" },
    });
  });

  it("close() ends every server's process", async () => {
    const mcp = hub();
    mcp.configure([stdioServer("test")]);
    const pid = Number((await callTool(await mcp.tools(["test"]), "test__pid", {})).observation);
    await mcp.close();
    await expect.poll(() => isAlive(pid)).toBe(false);
  });

  it("a command that cannot start is an error state with a retry time, and adds no tools", async () => {
    const mcp = hub();
    mcp.configure([
      { ...stdioServer("gone"), transport: { type: "stdio", command: "/nonexistent/mcp-server", args: [], env: {} } },
      stdioServer("test"),
    ]);
    const tools = await mcp.tools(["gone", "test"]);
    expect(tools.some((tool) => tool.name.startsWith("gone__"))).toBe(false);
    expect(names(tools)).toContain("test__echo");
    const [gone] = mcp.states();
    expect(gone).toMatchObject({ status: "error", error: expect.stringContaining("ENOENT") });
    expect(Date.parse(gone?.nextRetryAt ?? "")).toBeGreaterThan(Date.now() - 1000);
  });

  describe("reconnection", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), "mcp-hub-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("after the server dies, retries with growing waits until it starts again, then serves its tools", async () => {
      const block = path.join(dir, "block");
      const mcp = hub({ retryBaseMs: 100 });
      mcp.configure([stdioServer("test", { args: ["--fail-if-exists", block] })]);
      const tools = await mcp.tools(["test"]);
      writeFileSync(block, "");
      await callTool(tools, "test__crash", {});
      // Each failed restart doubles the wait: 100, 200, 400 ms…
      await expect.poll(() => mcp.states()[0]?.error ?? "", { timeout: 10_000 }).toContain("refusing to start");
      const waiting = mcp.states()[0];
      expect(waiting).toMatchObject({ status: "error", nextRetryAt: expect.any(String) });
      expect(await mcp.tools(["test"])).toEqual([]);
      rmSync(block);
      await expect.poll(() => mcp.states()[0]?.status, { timeout: 10_000 }).toBe("connected");
      expect(mcp.states()[0]?.nextRetryAt).toBeUndefined();
      expect((await callTool(tools, "test__echo", { text: "back" })).observation).toBe("back");
    });

    it("connect() reconnects at once, without waiting for the scheduled retry", async () => {
      const block = path.join(dir, "block2");
      writeFileSync(block, "");
      const mcp = hub({ retryBaseMs: 60_000 });
      mcp.configure([stdioServer("test", { args: ["--fail-if-exists", block] })]);
      expect(await mcp.tools(["test"])).toEqual([]);
      expect(mcp.states()[0]).toMatchObject({ status: "error", nextRetryAt: expect.any(String) });
      rmSync(block);
      expect(await mcp.connect("test")).toMatchObject({ status: "connected", transportInUse: "stdio" });
    });
  });
});

describe("MCP hub over HTTP", () => {
  const servers: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("uses Streamable HTTP, with list_changed reaching the client", async () => {
    const server = await startHttpTestServer();
    servers.push(server);
    const mcp = hub();
    mcp.configure([httpServer("web", server.url)]);
    const tools = await mcp.tools(["web"]);
    expect(mcp.states()[0]).toMatchObject({ status: "connected", transportInUse: "streamable-http" });
    expect((await callTool(tools, "web__echo", { text: "over http" })).observation).toBe("over http");
    await callTool(tools, "web__add_tool", { name: "late" });
    await expect.poll(async () => names(await mcp.tools(["web"]))).toContain("web__late");
  });

  it("closing a Streamable HTTP connection ends its session on the server with DELETE", async () => {
    const server = await startHttpTestServer();
    servers.push(server);
    const mcp = hub();
    mcp.configure([httpServer("web", server.url)]);
    await mcp.tools(["web"]);
    expect(server.endedSessions()).toEqual([]);
    mcp.configure([]);
    await expect.poll(() => server.endedSessions()).toHaveLength(1);

    mcp.configure([httpServer("web", server.url)]);
    await mcp.tools(["web"]);
    await mcp.close();
    expect(server.endedSessions()).toHaveLength(2);
  });

  it("falls back to the SSE transport when the server refuses the Streamable HTTP POST", async () => {
    const server = await startHttpTestServer({ sse: true });
    servers.push(server);
    const mcp = hub();
    mcp.configure([httpServer("old", server.url)]);
    const tools = await mcp.tools(["old"]);
    expect(mcp.states()[0]).toMatchObject({ status: "connected", transportInUse: "sse" });
    expect((await callTool(tools, "old__echo", { text: "over sse" })).observation).toBe("over sse");
  });

  it("a server that never answers is an error after MCP_CONNECT_TIMEOUT_S, and tools() returns without it", async () => {
    const held: Server = createServer(() => {});
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const address = held.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const mcp = hub({ connectTimeoutMs: 300 });
      mcp.configure([httpServer("stuck", `http://127.0.0.1:${port}/mcp`)]);
      expect(await mcp.tools(["stuck"])).toEqual([]);
      expect(mcp.states()[0]).toMatchObject({ status: "error", error: expect.stringMatching(/0\.3 s|timed out/) });
    } finally {
      held.closeAllConnections();
      held.close();
    }
  });

  it("a stopped run stops waiting for a server to connect", async () => {
    const held: Server = createServer(() => {});
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const address = held.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const mcp = hub({ connectTimeoutMs: 60_000 });
      mcp.configure([httpServer("stuck", `http://127.0.0.1:${port}/mcp`)]);
      const controller = new AbortController();
      const waiting = mcp.tools(["stuck"], controller.signal);
      controller.abort(new Error("stopped"));
      await expect(waiting).rejects.toThrow("stopped");
    } finally {
      held.closeAllConnections();
      held.close();
    }
  });
});
