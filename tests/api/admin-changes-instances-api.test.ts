import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getSettings } from "@/app/api/settings/route";
import { updateSettings } from "@/lib/admin-settings";
import { gateToolCalls, PendingApprovals } from "@/lib/chat/tool-approval";
import { closeDb, DB_FILENAME, type Db, getDb, openDb, openPostgresDb } from "@/lib/db/client";
import { addServer, updateServer } from "@/lib/db/mcp-servers";
import { mcpServers } from "@/lib/db/schema";
import { getConfig, resetConfigForTests } from "@/lib/env-config";
import { resetServerMcpForTests } from "@/lib/mcp/server-hub";
import { WEB_TOOL_GROUP } from "@/lib/mcp/tool-groups";
import { createRunToolRegistry } from "@/lib/tools/server-tools";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, newConversation, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";
import { callTool, stdioServer } from "@/tests/support/mcp";

// This process is one instance (the routes, on `getDb()`); `other` is a second instance's handle on
// the same database. What an admin changes there must reach this one (docs/cluster.md,
// "Several app instances"): it writes through the store, never through this process's hub or cache.
const fake = setupFakeOllama();
setupAppEnv(fake);

/** Nothing set in the environment: every setting is the page's to change. */
const NO_ENV: NodeJS.ProcessEnv = { NODE_ENV: "test" };

let other: Db;
beforeAll(async () => {
  // The test server's tools and the built-ins are over the selection threshold: these runs skip it.
  process.env.TOOL_SELECTION_THRESHOLD = "100";
  resetConfigForTests();
  const { DATABASE_URL, DATA_DIR } = getConfig();
  other = DATABASE_URL ? await openPostgresDb(DATABASE_URL) : await openDb(path.resolve(DATA_DIR, DB_FILENAME));
});
afterAll(async () => {
  delete process.env.TOOL_SELECTION_THRESHOLD;
  resetConfigForTests();
  await resetServerMcpForTests();
  await closeDb(other);
});
beforeEach(async () => {
  await other.delete(mcpServers);
  await resetServerMcpForTests();
});
afterEach(async () => {
  await updateSettings(other, { keepAlive: { general: null } }, NO_ENV);
});

async function chatOnce(): Promise<void> {
  const id = await newConversation();
  fake().script({ content: "Hi." });
  await readEvents(await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "hi" })));
  await waitIdle(fake(), id);
}

/** The function names the first recorded request offered the model. */
const offered = () =>
  ((fake().chatRequests()[0]?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

const { transport } = stdioServer("files");

describe("an admin's change on one instance reaches every instance", () => {
  it("an MCP server switched off on another instance is not offered at this instance's next run", async () => {
    await addServer(other, { name: "files", enabled: true, transport });
    fake().reset();
    await chatOnce();
    expect(offered()).toContain("files__echo");

    await updateServer(other, { name: "files", enabled: false });
    fake().reset();
    await chatOnce();
    expect(offered().filter((name) => name.startsWith("files__"))).toEqual([]);
    expect(offered()).toContain("web_search");
  });

  it("a run that was offered a server's tools cannot call one once another instance switched it, or its server, off", async () => {
    await addServer(other, { name: "files", enabled: true, transport });
    const { registry } = await createRunToolRegistry(await getDb(), {
      conversationId: "none",
      disabledToolGroups: [WEB_TOOL_GROUP],
      signal: new AbortController().signal,
    });
    const tools = registry.names.map((name) => registry.get(name)!);
    expect(await callTool(tools, "files__echo", { text: "before" })).toMatchObject({ ok: true, output: "before" });

    await updateServer(other, { name: "files", disabledTools: ["echo"] });
    const switchedOff = await callTool(tools, "files__echo", { text: "after" });
    expect(switchedOff).toMatchObject({ ok: false, error: { kind: "tool_failed" } });
    expect(switchedOff.observation).toContain("files__echo has been switched off");
    expect(await callTool(tools, "files__pid", {})).toMatchObject({ ok: true });

    await updateServer(other, { name: "files", enabled: false });
    const serverOff = await callTool(tools, "files__pid", {});
    expect(serverOff).toMatchObject({ ok: false, error: { kind: "tool_failed" } });
    expect(serverOff.observation).toContain("The MCP server files is no longer available");
  });

  it("a tool's approval set to deny on another instance applies to a run already holding the tool", async () => {
    await addServer(other, { name: "files", enabled: true, transport });
    await updateServer(other, { name: "files", toolApproval: { default: "allow", tools: {} } });
    const { registry } = await createRunToolRegistry(await getDb(), {
      conversationId: "none",
      disabledToolGroups: [WEB_TOOL_GROUP],
      signal: new AbortController().signal,
    });
    const gated = gateToolCalls(registry, {
      pending: new PendingApprovals(),
      always: { has: async () => false, add: async () => {} },
      onStep: () => {},
      timeoutMs: 60_000,
      language: "en",
    });
    const tools = gated.names.map((name) => gated.get(name)!);
    expect(await callTool(tools, "files__echo", { text: "allowed" })).toMatchObject({ ok: true, output: "allowed" });

    await updateServer(other, { name: "files", toolApproval: { default: "deny", tools: {} } });
    expect(await callTool(tools, "files__echo", { text: "denied" })).toMatchObject({
      ok: false,
      error: { kind: "not_approved" },
    });
  });

  it("a setting saved on another instance is what this instance's next run sends and its settings page shows", async () => {
    fake().reset();
    await chatOnce();
    expect(fake().chatRequests()[0]?.body.keep_alive).toBe("5m");

    await updateSettings(other, { keepAlive: { general: "42m" } }, NO_ENV);
    fake().reset();
    await chatOnce();
    expect(fake().chatRequests()[0]?.body.keep_alive).toBe("42m");
    const page = (await (await getSettings(jsonRequest("/api/settings", "GET"), undefined)).json()) as {
      keepAlive: { roles: { general: string | null } };
    };
    expect(page.keepAlive.roles.general).toBe("42m");
  });
});
