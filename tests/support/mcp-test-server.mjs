/**
 * An MCP server for tests, written with the official SDK. Loopback only.
 *
 *   node tests/support/mcp-test-server.mjs                 stdio (what a stdio config's command runs)
 *   node tests/support/mcp-test-server.mjs --http 0        Streamable HTTP on 127.0.0.1 (0: a free port);
 *                                                          prints "listening http://127.0.0.1:PORT/mcp"
 *   node tests/support/mcp-test-server.mjs --sse 0         the older SSE transport only (POST /mcp is 405):
 *                                                          proves a client's fallback
 *   --many                                                 twenty numbered tools (tool_01…tool_20) instead
 *   --fail-if-exists PATH                                  exit at once with status 1 while PATH exists
 *                                                          (a server that keeps failing to start)
 *   --hostile schema-bomb|huge-list|list-spam              a hostile server instead (below)
 *
 * In-process: `startHttpTestServer({ port, sse, many, hostile })` → `{ url, endedSessions(), close() }`.
 *
 * Hostile servers list `ok` (answers "ok") and, with `schema-bomb`, `bomb`, whose input schema is
 * 1.3 KB of references that fan out into 4^8 properties; with `huge-list`, `bulky`, whose
 * description is 512 KB; with `list-spam`, `spam {count}` (sends that many list_changed at once) and
 * `list_count` (the tools/list requests received).
 *
 * Tools: echo {text}; fail {message} (isError); slow {ms} (waits, or until cancelled: each
 * notifications/cancelled it receives is recorded); in_flight (slow calls running); cancellations
 * (those recorded, as JSON);
 * large {chars}; image (a PNG); page {format: html|markdown} (an embedded resource); add_tool {name}
 * (registers a new echo tool: list_changed); env {name} (an environment variable, "(unset)" if not
 * set); write_note {text} (records it: the one tool with `destructiveHint`, which asks the user
 * first); notes (those written, as JSON); pid (the server's process id); crash (the process exits:
 * stdio only). The tools that only read are annotated `readOnlyHint: true`; add_tool and crash are not.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** A 2×2 red PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8DwnwGMgRQAH+4D/dJQfRoAAAAASUVORK5CYII=";

/** Cancellations received, across sessions: `{ requestId, reason }`. */
const cancellations = [];
/** `slow` calls still running. */
let inFlight = 0;

const text = (value) => ({ content: [{ type: "text", text: value }] });

/** The annotation of a tool that only reads: it runs without asking the user. */
const READ_ONLY = { readOnlyHint: true };

/** What `write_note` wrote, across sessions. */
const notes = [];

function addDefaultTools(server) {
  server.registerTool(
    "echo",
    {
      annotations: READ_ONLY,
      description: "Echoes the text back.",
      inputSchema: { text: z.string().describe("What to echo") },
    },
    async ({ text: value }) => text(value),
  );
  server.registerTool(
    "fail",
    {
      annotations: READ_ONLY,
      description: "Always fails with the given message.",
      inputSchema: { message: z.string() },
    },
    async ({ message }) => ({ isError: true, content: [{ type: "text", text: message }] }),
  );
  server.registerTool(
    "slow",
    {
      annotations: READ_ONLY,
      description: "Answers after ms milliseconds.",
      inputSchema: { ms: z.number().int().min(0) },
    },
    (args, extra) =>
      new Promise((resolve) => {
        inFlight++;
        const done = (result) => {
          inFlight--;
          resolve(result);
        };
        const timer = setTimeout(() => done(text(`waited ${args.ms} ms`)), args.ms);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          cancellations.push({ requestId: extra.requestId, reason: String(extra.signal.reason ?? "") });
          done(text("cancelled"));
        });
      }),
  );
  server.registerTool(
    "in_flight",
    { annotations: READ_ONLY, description: "How many slow calls are running." },
    async () => text(String(inFlight)),
  );
  server.registerTool(
    "cancellations",
    { annotations: READ_ONLY, description: "The cancellations this server received, as JSON." },
    async () => text(JSON.stringify(cancellations)),
  );
  server.registerTool(
    "large",
    {
      annotations: READ_ONLY,
      description: "A long text of words.",
      inputSchema: { chars: z.number().int().min(1) },
    },
    async ({ chars }) => text("lorem ipsum ".repeat(Math.ceil(chars / 12)).slice(0, chars)),
  );
  server.registerTool("image", { annotations: READ_ONLY, description: "Draws a red square." }, async () => ({
    content: [
      { type: "text", text: "A red square." },
      { type: "image", data: PNG, mimeType: "image/png" },
    ],
  }));
  server.registerTool(
    "page",
    {
      annotations: READ_ONLY,
      description: "A report as an embedded document.",
      inputSchema: { format: z.enum(["html", "markdown"]).optional() },
    },
    async ({ format = "html" }) => ({
      content: [
        {
          type: "resource",
          resource:
            format === "html"
              ? { uri: "ui://reports/report.html", mimeType: "text/html", text: "<h1>Report</h1><p>All good.</p>" }
              : { uri: "ui://reports/report.md", mimeType: "text/markdown", text: "# Report\n\nAll good." },
        },
      ],
    }),
  );
  server.registerTool(
    "add_tool",
    { description: "Adds an echo tool with this name.", inputSchema: { name: z.string() } },
    async ({ name }) => {
      server.registerTool(name, { description: `Added at run time: ${name}.` }, async () => text(`${name} here`));
      return text(`added ${name}`);
    },
  );
  server.registerTool(
    "env",
    {
      annotations: READ_ONLY,
      description: "An environment variable of the server's process.",
      inputSchema: { name: z.string() },
    },
    async ({ name }) => text(process.env[name] ?? "(unset)"),
  );
  server.registerTool(
    "write_note",
    {
      description: "Writes a note (a tool that acts: it asks the user first).",
      annotations: { destructiveHint: true },
      inputSchema: { text: z.string() },
    },
    async ({ text: value }) => {
      notes.push(value);
      return text(`wrote ${value}`);
    },
  );
  server.registerTool("notes", { annotations: READ_ONLY, description: "The notes written, as JSON." }, async () =>
    text(JSON.stringify(notes)),
  );
  server.registerTool("pid", { annotations: READ_ONLY, description: "The server's process id." }, async () =>
    text(String(process.pid)),
  );
  server.registerTool("crash", { description: "Ends the server's process." }, async () => {
    setImmediate(() => process.exit(1));
    return text("bye");
  });
}

function addManyTools(server) {
  for (let i = 1; i <= 20; i++) {
    const name = `tool_${String(i).padStart(2, "0")}`;
    server.registerTool(
      name,
      { annotations: READ_ONLY, description: `Looks up fact number ${i}.`, inputSchema: { query: z.string() } },
      async ({ query }) => text(`${name}: ${query}`),
    );
  }
}

/** Definitions d0…d8, each with four properties that refer to the next. */
function fanOutSchema() {
  const $defs = { d8: { type: "string" } };
  for (let level = 7; level >= 0; level--) {
    const ref = { $ref: `#/$defs/d${level + 1}` };
    $defs[`d${level}`] = { type: "object", properties: { a: ref, b: ref, c: ref, d: ref } };
  }
  return { type: "object", $defs, properties: { root: { $ref: "#/$defs/d0" } } };
}

/** A server written at the protocol level: its tool list is whatever JSON it chooses to send. */
function makeHostileServer(kind) {
  const server = new Server(
    { name: "ollama-web-hostile-server", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  const noArguments = { type: "object", properties: {} };
  const ok = { name: "ok", description: "Answers ok.", inputSchema: noArguments };
  const others = {
    "schema-bomb": [{ name: "bomb", description: "A schema that fans out.", inputSchema: fanOutSchema() }],
    "huge-list": [{ name: "bulky", description: "x".repeat(512 * 1024), inputSchema: noArguments }],
    "list-spam": [
      {
        name: "spam",
        description: "Says count times, at once, that the tool list changed.",
        inputSchema: { type: "object", properties: { count: { type: "integer" } } },
      },
      { name: "list_count", description: "How many tools/list requests came.", inputSchema: noArguments },
    ],
  };
  let lists = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    lists++;
    return { tools: [ok, ...others[kind]] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === "list_count") return text(String(lists));
    if (request.params.name === "spam") {
      // All written before this handler yields: the client has every one before any listing's answer.
      for (let i = 0; i < (request.params.arguments?.count ?? 0); i++) void server.sendToolListChanged();
    }
    return text("ok");
  });
  return server;
}

function makeServer({ many = false, hostile } = {}) {
  if (hostile) return makeHostileServer(hostile);
  const server = new McpServer(
    { name: "ollama-web-test-server", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  if (many) addManyTools(server);
  else addDefaultTools(server);
  return server;
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks).toString("utf8");
  return body ? JSON.parse(body) : undefined;
}

/** Streamable HTTP (stateful: one server per session, so list_changed reaches its client), or SSE only. */
export async function startHttpTestServer({ port = 0, sse = false, many = false, hostile } = {}) {
  const sessions = new Map();
  const ended = [];
  const http = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (sse) {
        if (req.method === "GET" && url.pathname === "/mcp") {
          const transport = new SSEServerTransport("/messages", res);
          sessions.set(transport.sessionId, transport);
          transport.onclose = () => sessions.delete(transport.sessionId);
          await makeServer({ many, hostile }).connect(transport);
          return;
        }
        const transport = sessions.get(url.searchParams.get("sessionId"));
        if (req.method === "POST" && url.pathname === "/messages" && transport) {
          await transport.handlePostMessage(req, res);
          return;
        }
        res.writeHead(req.method === "POST" && url.pathname === "/mcp" ? 405 : 404).end();
        return;
      }
      if (url.pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const body = req.method === "POST" ? await readJson(req) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (transport && req.method === "DELETE") ended.push(id);
      if (!transport && req.method === "POST" && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
        });
        transport.onclose = () => sessions.delete(transport.sessionId);
        await makeServer({ many, hostile }).connect(transport);
      }
      if (!transport) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Unknown session" }, id: null }));
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise((resolve) => http.listen(port, "127.0.0.1", resolve));
  const address = http.address();
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    endedSessions: () => [...ended],
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function main(argv) {
  const flag = (name) => argv.indexOf(name);
  const value = (name) => argv[flag(name) + 1];
  const failFile = flag("--fail-if-exists") >= 0 ? value("--fail-if-exists") : null;
  if (failFile && existsSync(failFile)) {
    process.stderr.write(`refusing to start: ${failFile} exists\n`);
    process.exit(1);
  }
  const many = flag("--many") >= 0;
  const hostile = flag("--hostile") >= 0 ? value("--hostile") : undefined;
  if (flag("--http") >= 0 || flag("--sse") >= 0) {
    const sse = flag("--sse") >= 0;
    const port = Number(value(sse ? "--sse" : "--http") ?? 0);
    const { url } = await startHttpTestServer({ port, sse, many, hostile });
    process.stdout.write(`listening ${url}\n`);
    return;
  }
  await makeServer({ many, hostile }).connect(new StdioServerTransport());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
