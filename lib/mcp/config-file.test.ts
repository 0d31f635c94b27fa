import { describe, expect, it } from "vitest";
import { normaliseServerName, parseMcpConfig, serverNameProblem } from "./config-file";

const parse = (mcpServers: unknown) => parseMcpConfig({ mcpServers }, "file");

describe("parseMcpConfig", () => {
  it("reads a Claude Desktop config: stdio servers with command, args, env and cwd", () => {
    const text = JSON.stringify({
      mcpServers: {
        filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
        github: {
          command: "docker",
          args: ["run", "-i", "ghcr.io/github/github-mcp-server"],
          env: { TOKEN: "t" },
          cwd: "/srv",
        },
      },
    });
    expect(parseMcpConfig(text, "file")).toEqual({
      servers: [
        {
          name: "filesystem",
          enabled: true,
          transport: {
            type: "stdio",
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
            env: {},
          },
          disabledTools: [],
          toolApproval: { default: null, tools: {} },
          origin: "file",
        },
        {
          name: "github",
          enabled: true,
          transport: {
            type: "stdio",
            command: "docker",
            args: ["run", "-i", "ghcr.io/github/github-mcp-server"],
            env: { TOKEN: "t" },
            cwd: "/srv",
          },
          disabledTools: [],
          toolApproval: { default: null, tools: {} },
          origin: "file",
        },
      ],
      problems: [],
    });
  });

  it("reads Cursor's remote servers: url and headers, with type http, streamable-http or sse", () => {
    const { servers, problems } = parse({
      remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
      typed: { type: "streamable-http", url: "http://127.0.0.1:9000/mcp" },
      legacy: { type: "sse", url: "http://127.0.0.1:9001/sse" },
    });
    expect(problems).toEqual([]);
    expect(servers.map((server) => server.transport)).toEqual([
      { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
      { type: "http", url: "http://127.0.0.1:9000/mcp", headers: {} },
      { type: "http", url: "http://127.0.0.1:9001/sse", headers: {} },
    ]);
  });

  it('"disabled": true keeps the server, switched off; "disabledTools" is taken over', () => {
    const { servers } = parse({ off: { command: "x", disabled: true, disabledTools: ["delete_all"] } });
    expect(servers[0]).toMatchObject({ name: "off", enabled: false, disabledTools: ["delete_all"] });
  });

  it("\"toolApproval\" sets the server's approval policy and its tools'; a policy that is not ask, allow or deny is refused", () => {
    const { servers, problems } = parse({
      gh: { command: "x", toolApproval: { default: "ask", tools: { get_issue: "allow", delete_repo: "deny" } } },
      bad: { command: "x", toolApproval: { tools: { write: "yes" } } },
      worse: { command: "x", toolApproval: { default: "always" } },
    });
    expect(servers.map((server) => [server.name, server.toolApproval])).toEqual([
      ["gh", { default: "ask", tools: { get_issue: "allow", delete_repo: "deny" } }],
    ]);
    expect(problems).toEqual([
      { server: "bad", message: '"toolApproval.tools.write" must be one of ask, allow, deny.' },
      { server: "worse", message: '"toolApproval.default" must be one of ask, allow, deny.' },
    ]);
  });

  it("names each bad server with its own problem and keeps the good ones", () => {
    const { servers, problems } = parse({
      good: { command: "ok" },
      nothing: {},
      blank: { command: "  " },
      both: { command: "x", url: "http://127.0.0.1/" },
      ftp: { url: "ftp://example.com/mcp" },
      file: { url: "file:///etc/passwd" },
      broken: { url: "not a url" },
      badType: { type: "websocket", url: "ws://127.0.0.1/" },
      noUrl: { type: "sse" },
      badArgs: { command: "x", args: "--flag" },
      badEnv: { command: "x", env: { PORT: 8080 } },
      badHeaders: { url: "http://127.0.0.1/", headers: ["x"] },
      badCwd: { command: "x", cwd: 5 },
      notObject: "npx server",
    });
    expect(servers.map((server) => server.name)).toEqual(["good"]);
    expect(Object.fromEntries(problems.map((problem) => [problem.server, problem.message]))).toEqual({
      nothing: 'A stdio server needs a "command" (or give a "url").',
      blank: 'A stdio server needs a "command" (or give a "url").',
      both: 'Give either "command" or "url", not both.',
      ftp: '"url" must be http(s) (got ftp://example.com/mcp).',
      file: '"url" must be http(s) (got file:///etc/passwd).',
      broken: '"url" is not a valid URL: not a url',
      badType: '"type" must be stdio, http, streamable-http or sse (got "websocket").',
      noUrl: 'An http or sse server needs a "url".',
      badArgs: '"args" must be a list of strings.',
      badEnv: '"env.PORT" must be a string.',
      badHeaders: '"headers" must be an object of strings.',
      badCwd: '"cwd" must be a directory path.',
      notObject: "The entry must be an object with a command or a url.",
    });
  });

  it("normalises names to the tool namespace and refuses bad names and duplicates after normalisation", () => {
    const { servers, problems } = parse({
      "Brave Search": { command: "a" },
      "brave.search": { command: "b" },
      日本語: { command: "c" },
      [`${"x".repeat(40)}`]: { command: "d" },
      my__server: { command: "e" },
    });
    expect(servers.map((server) => server.name)).toEqual(["Brave_Search", "my_server"]);
    expect(problems).toEqual([
      { server: "brave.search", message: 'The name "brave_search" is already used by "Brave Search".' },
      { server: "日本語", message: "The name must contain a letter or digit." },
      { server: "x".repeat(40), message: "The name is longer than 32 characters." },
    ]);
  });

  it("reports a document that is not JSON or has no mcpServers object, with no servers", () => {
    expect(parseMcpConfig("{nope", "settings")).toEqual({
      servers: [],
      problems: [{ server: null, message: expect.stringMatching(/^Not valid JSON: /) }],
    });
    for (const document of [[], { servers: {} }, { mcpServers: [] }, null]) {
      expect(parseMcpConfig(document, "settings").problems).toEqual([
        { server: null, message: 'Expected an object with "mcpServers": {…}.' },
      ]);
    }
  });

  it("a name like __proto__ is an ordinary server, not a prototype", () => {
    const { servers } = parseMcpConfig('{"mcpServers":{"__proto__":{"command":"x"}}}', "settings");
    expect(servers.map((server) => server.name)).toEqual(["proto"]);
  });
});

describe("server names", () => {
  it("normaliseServerName keeps letters, digits, - and single _", () => {
    expect(normaliseServerName("  my server!! v2 ")).toBe("my_server_v2");
    expect(normaliseServerName("a___b")).toBe("a_b");
    expect(normaliseServerName("-x-")).toBe("-x-");
  });

  it("serverNameProblem refuses empty, long and double-underscore names", () => {
    expect(serverNameProblem("ok-name_1")).toBeNull();
    expect(serverNameProblem("")).not.toBeNull();
    expect(serverNameProblem("a".repeat(33))).not.toBeNull();
    expect(serverNameProblem("a__b")).not.toBeNull();
    expect(serverNameProblem("a b")).not.toBeNull();
  });
});
