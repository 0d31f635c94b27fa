import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as importServers } from "@/app/api/admin/mcp/import/route";
import { POST as connect } from "@/app/api/admin/mcp/servers/[name]/connect/route";
import { PATCH as patch, DELETE as remove } from "@/app/api/admin/mcp/servers/[name]/route";
import { POST as add, GET as list } from "@/app/api/admin/mcp/servers/route";
import { GET as getConversation, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { GET as toolGroups } from "@/app/api/tool-groups/route";
import { resetConfigForTests } from "@/lib/env-config";
import type { McpServersView, McpServerView } from "@/lib/mcp/admin";
import { resetServerMcpForTests } from "@/lib/mcp/server-hub";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, setupAppEnv } from "@/tests/support/app-env";
import { type FakeMcpHub, fakeMcpHub } from "@/tests/support/fake-mcp-hub";

// The MCP settings are the admin's (docs/security.md): servers run commands on this machine.
const fake = setupFakeOllama();
const app = setupAppEnv(fake);

// These tests add stdio servers through the API, as an install that allows it does (tests/api/mcp-stdio-api.test.ts: the default).
const { admin, user } = setupAccounts({ env: { MCP_STDIO_FROM_UI: "1" } });
let hub: FakeMcpHub;

const SECRET = "sk-very-secret-value-1234";
const stdioServer = {
  name: "files",
  transport: { type: "stdio", command: "node", args: ["server.js"], env: { API_KEY: SECRET } },
};
const httpServer = {
  name: "remote",
  transport: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${SECRET}` } },
};

const named = (name: string) => params({ name });
const listAs = async (who: TestClient) =>
  (await (await list(who.request("/api/admin/mcp/servers", "GET"))).json()) as McpServersView;
const addAs = (who: TestClient, body: unknown) => add(who.request("/api/admin/mcp/servers", "POST", body));
const patchAs = (who: TestClient, name: string, body: unknown) =>
  patch(who.request(`/api/admin/mcp/servers/${name}`, "PATCH", body), named(name));
const serverOf = async (response: Response) => ((await response.json()) as { server: McpServerView }).server;

beforeEach(async () => {
  hub = fakeMcpHub();
  await resetServerMcpForTests(() => hub);
  for (const server of (await listAs(admin)).servers) {
    await remove(admin.request(`/api/admin/mcp/servers/${server.name}`, "DELETE"), named(server.name));
  }
});
afterAll(async () => {
  await resetServerMcpForTests();
});

describe("MCP servers on the settings page", () => {
  it("only an admin configures MCP servers: a user is refused on every route and changes nothing", async () => {
    expect((await addAs(admin, stdioServer)).status).toBe(201);
    const before = await listAs(admin);
    const refused = [
      await list(user.request("/api/admin/mcp/servers", "GET")),
      await addAs(user, httpServer),
      await patchAs(user, "files", { enabled: false }),
      await remove(user.request("/api/admin/mcp/servers/files", "DELETE"), named("files")),
      await connect(user.request("/api/admin/mcp/servers/files/connect", "POST"), named("files")),
      await importServers(user.request("/api/admin/mcp/import", "POST", { config: '{"mcpServers":{}}' })),
    ];
    for (const response of refused) await expectApiError(response, 403, "forbidden:admin");
    expect(await listAs(admin)).toEqual(before);
    const anonymous = await list(client().request("/api/admin/mcp/servers", "GET"));
    await expectApiError(anonymous, 401, "unauthorized:session");
  });

  it("adds a server, lists it with its state, tests the connection and shows its tools", async () => {
    const added = await addAs(admin, stdioServer);
    expect(added.status).toBe(201);
    expect(await serverOf(added)).toMatchObject({ name: "files", origin: "settings", enabled: true });
    expect(hub.configured.at(-1)?.map((s) => s.name)).toEqual(["files"]);
    expect((await listAs(admin)).servers.map((s) => [s.name, s.state.status])).toEqual([["files", "idle"]]);

    const tested = await serverOf(await connect(admin.request("", "POST"), named("files")));
    expect(tested.state).toMatchObject({ status: "connected", transportInUse: "stdio" });
    expect(tested.state.tools.map((t) => t.qualifiedName)).toEqual(["files__echo"]);
  });

  it("header and env values are never returned to the browser, nor logged", async () => {
    const logged = [vi.spyOn(console, "log"), vi.spyOn(console, "error"), vi.spyOn(console, "warn")];
    const responses = [await addAs(admin, stdioServer), await addAs(admin, httpServer)];
    const bodies = await Promise.all(responses.map((r) => r.text()));
    bodies.push(JSON.stringify(await listAs(admin)));
    bodies.push(await (await patchAs(admin, "remote", { enabled: false })).text());
    for (const body of bodies) expect(body).not.toContain(SECRET);
    const shown = await listAs(admin);
    expect(shown.servers.find((s) => s.name === "files")?.transport).toEqual({
      type: "stdio",
      command: "node",
      args: ["server.js"],
      env: { API_KEY: null },
    });
    expect(shown.servers.find((s) => s.name === "remote")?.transport).toMatchObject({
      headers: { Authorization: null },
    });
    for (const spy of logged) {
      expect(JSON.stringify(spy.mock.calls)).not.toContain(SECRET);
      spy.mockRestore();
    }
    // The hub gets the real values.
    expect(hub.configured.at(-1)?.find((s) => s.name === "files")?.transport).toMatchObject({
      env: { API_KEY: SECRET },
    });
  });

  it("an edit keeps a saved secret sent back as null, and refuses null for a value never saved", async () => {
    await addAs(admin, httpServer);
    const edited = await patchAs(admin, "remote", {
      transport: {
        type: "http",
        url: "http://127.0.0.1:9/v2",
        headers: { Authorization: null, "X-Team": "blue" },
      },
    });
    expect(edited.status).toBe(200);
    expect(hub.configured.at(-1)?.[0]?.transport).toEqual({
      type: "http",
      url: "http://127.0.0.1:9/v2",
      headers: { Authorization: `Bearer ${SECRET}`, "X-Team": "blue" },
    });
    const configuredBefore = hub.configured.length;
    const refused = await patchAs(admin, "remote", {
      transport: { type: "http", url: "http://127.0.0.1:9/v3", headers: { "X-New": null } },
    });
    expect(await expectApiError(refused, 400, "bad_request:mcp_secret")).toContain("X-New");
    expect(hub.configured.length).toBe(configuredBefore);
    expect((await listAs(admin)).servers[0]?.transport).toMatchObject({ url: "http://127.0.0.1:9/v2" });
  });

  it("disables a server and switches off a tool; the hub is reconfigured each time", async () => {
    await addAs(admin, stdioServer);
    await connect(admin.request("", "POST"), named("files"));
    const toolOff = await serverOf(await patchAs(admin, "files", { disabledTools: ["echo"] }));
    expect(toolOff.disabledTools).toEqual(["echo"]);
    expect(hub.configured.at(-1)?.[0]?.disabledTools).toEqual(["echo"]);
    const disabled = await serverOf(await patchAs(admin, "files", { enabled: false }));
    expect(disabled.state.status).toBe("disabled");
    await expectApiError(await connect(admin.request("", "POST"), named("files")), 409, "conflict:mcp_server_disabled");
  });

  it("refuses a bad server before storing anything: name, command, URL, header value, duplicate", async () => {
    await addAs(admin, stdioServer);
    const bad = [
      { ...stdioServer, name: "has space" },
      { ...stdioServer, name: "x".repeat(33) },
      { ...stdioServer, name: "名前" },
      { name: "empty", transport: { type: "stdio", command: "  " } },
      { name: "ftp", transport: { type: "http", url: "ftp://127.0.0.1/mcp" } },
      { name: "split", transport: { type: "http", url: "http://127.0.0.1/", headers: { A: "x\r\nB: y" } } },
      { name: "extra", transport: { type: "stdio", command: "node", shell: true } },
    ];
    for (const body of bad) await expectApiError(await addAs(admin, body), 400, "bad_request:validation");
    await expectApiError(await addAs(admin, stdioServer), 409, "conflict:mcp_server_exists");
    expect((await listAs(admin)).servers.map((s) => s.name)).toEqual(["files"]);
  });

  it("removes a server: the hub closes it; an unknown name is a 404", async () => {
    await addAs(admin, stdioServer);
    const removed = await remove(admin.request("", "DELETE"), named("files"));
    expect(removed.status).toBe(204);
    expect(hub.configured.at(-1)).toEqual([]);
    await expectApiError(await remove(admin.request("", "DELETE"), named("files")), 404, "not_found:mcp_server");
    await expectApiError(await patchAs(admin, "ghost", { enabled: true }), 404, "not_found:mcp_server");
  });

  it("any user sees the tool groups (web and each enabled server) without transports or errors", async () => {
    await addAs(admin, stdioServer);
    await addAs(admin, { ...httpServer, enabled: false });
    const body = await (await toolGroups(user.request("/api/tool-groups", "GET"))).text();
    expect(JSON.parse(body)).toEqual({
      groups: [
        { id: "web", kind: "web" },
        { id: "mcp:files", kind: "mcp", name: "files", status: "idle", toolCount: 0 },
      ],
    });
    expect(body).not.toContain("node");
  });

  it("a user cannot switch the tool groups of another user's conversation: 404, nothing changed", async () => {
    const created = await createConversation(admin.request("/api/conversations", "POST", {}));
    const { conversation } = (await created.json()) as { conversation: { id: string } };
    const id = conversation.id;
    const refused = await patchConversation(
      user.request(`/api/conversations/${id}`, "PATCH", { disabledToolGroups: ["web"] }),
      params({ id }),
    );
    await expectApiError(refused, 404, "not_found:conversation");
    const detail = (await (await getConversation(admin.request("", "GET"), params({ id }))).json()) as {
      conversation: { disabledToolGroups: string[] };
    };
    expect(detail.conversation.disabledToolGroups).toEqual([]);
  });
});

const importAs = (who: TestClient, config: unknown, replace?: string[]) =>
  importServers(
    who.request("/api/admin/mcp/import", "POST", {
      config: typeof config === "string" ? config : JSON.stringify(config),
      ...(replace ? { replace } : {}),
    }),
  );

describe("importing a pasted mcpServers config", () => {
  it("checks every server before storing any: one bad entry stores nothing and each problem is named", async () => {
    const response = await importAs(admin, {
      mcpServers: {
        good: { command: "npx", args: ["-y", "pkg"], env: { TOKEN: SECRET } },
        noCommand: { args: ["x"] },
        badUrl: { url: "ftp://127.0.0.1/" },
      },
    });
    const message = await expectApiError(response, 400, "bad_request:mcp_import");
    expect(message).toContain("noCommand");
    expect(message).toContain("badUrl");
    expect(message).not.toContain(SECRET);
    expect((await listAs(admin)).servers).toEqual([]);
    await expectApiError(await importAs(admin, "{not json"), 400, "bad_request:mcp_import");
  });

  it("stores every server of a valid config, with its secrets masked in the list", async () => {
    const response = await importAs(admin, {
      mcpServers: {
        "my files": { command: "npx", args: ["-y", "pkg"], env: { TOKEN: SECRET } },
        remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Key": SECRET }, disabled: true },
      },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ added: ["my_files", "remote"], replaced: [] });
    const listed = await listAs(admin);
    expect(listed.servers.map((s) => [s.name, s.enabled, s.origin])).toEqual([
      ["my_files", true, "settings"],
      ["remote", false, "settings"],
    ]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
  });

  it("never overwrites a stored server without saying so: 409 names it, and replace replaces it", async () => {
    await addAs(admin, stdioServer);
    const config = { mcpServers: { FILES: { command: "uvx", args: ["other"] }, extra: { command: "node" } } };
    const refused = await importAs(admin, config);
    expect(await expectApiError(refused, 409, "conflict:mcp_server_exists")).toContain("files");
    expect((await listAs(admin)).servers.map((s) => s.name)).toEqual(["files"]);

    const replaced = await importAs(admin, config, ["files"]);
    expect(await replaced.json()).toEqual({ added: ["extra"], replaced: ["FILES"] });
    const listed = await listAs(admin);
    expect(listed.servers.map((s) => s.name)).toEqual(["FILES", "extra"]);
    expect(listed.servers[0]?.transport).toMatchObject({ command: "uvx", env: {} });
  });
});

describe("the MCP_CONFIG file", () => {
  const withFile = async (contents: string) => {
    const file = path.join(app.dataDir(), "mcp.json");
    fs.writeFileSync(file, contents);
    process.env.MCP_CONFIG = file;
    resetConfigForTests();
    await resetServerMcpForTests(() => hub);
    return file;
  };
  afterAll(() => {
    delete process.env.MCP_CONFIG;
    resetConfigForTests();
  });

  it("its servers are listed read-only, a name in both is the file's, and the UI is told", async () => {
    await addAs(admin, stdioServer);
    await withFile(
      JSON.stringify({ mcpServers: { files: { command: "uvx", args: ["from-file"] }, docs: { command: "x" } } }),
    );
    const listed = await listAs(admin);
    expect(listed.file?.error).toBeUndefined();
    expect(listed.servers.map((s) => [s.name, s.origin, s.shadowedByFile])).toEqual([
      ["files", "file", false],
      ["docs", "file", false],
      ["files", "settings", true],
    ]);
    expect(hub.configured.at(-1)?.map((s) => [s.name, s.origin])).toEqual([
      ["files", "file"],
      ["docs", "file"],
    ]);
    await expectApiError(await patchAs(admin, "docs", { enabled: false }), 409, "conflict:mcp_file_server");
    await expectApiError(await remove(admin.request("", "DELETE"), named("docs")), 409, "conflict:mcp_file_server");
    await expectApiError(await addAs(admin, { ...stdioServer, name: "docs" }), 409, "conflict:mcp_file_server");
    // The stored one of the same name can still be removed.
    expect((await remove(admin.request("", "DELETE"), named("files"))).status).toBe(204);
  });

  it("a broken file leaves the app running, and the settings list shows the file's error", async () => {
    const file = await withFile('{"mcpServers": {"ok": {"command": "node"}, "bad": {"args": 1}');
    const listed = await listAs(admin);
    expect(listed.file).toEqual({ path: file, error: expect.stringContaining("Not valid JSON") });
    expect(listed.servers).toEqual([]);
    expect((await addAs(admin, stdioServer)).status).toBe(201);

    await withFile(JSON.stringify({ mcpServers: { ok: { command: "node" }, bad: { args: 1 } } }));
    const partly = await listAs(admin);
    expect(partly.file?.error).toContain("bad");
    expect(partly.servers.filter((s) => s.origin === "file").map((s) => s.name)).toEqual(["ok"]);
  });
});
