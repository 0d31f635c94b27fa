import "server-only";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { boundedFetch, type McpReplyTooLarge } from "./bounded-reply";
import type { McpServerState, McpTransportConfig } from "./types";

/**
 * Opening one MCP connection: a stdio child with only its configured environment, or an HTTP
 * server over Streamable HTTP, falling back to the older SSE transport when the first POST is
 * refused with a 4xx (the MCP spec's backwards-compatibility rule); and closing one.
 */

export interface OpenConnection {
  client: Client;
  transportInUse: NonNullable<McpServerState["transportInUse"]>;
}

/** What a stdio server inherits from the app: enough to find programs and read text, never its secrets. */
const INHERITED_ENV = ["PATH", "HOME", "LANG"] as const;

/**
 * The environment of a stdio server: the inherited few, then its config's. The SDK adds its own
 * sudo-like defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER) beneath these.
 */
export function serverEnvironment(configured: Record<string, string>): Record<string, string> {
  const inherited = INHERITED_ENV.flatMap((name) => {
    const value = process.env[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  return { ...Object.fromEntries(inherited), ...configured };
}

/** Seconds, for messages. */
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The error as a sentence, with its cause (fetch's "fetch failed" says little alone). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}

async function connectWithin(client: Client, transport: Transport, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The server did not connect within ${seconds(timeoutMs)}.`)), timeoutMs);
  });
  try {
    // The SDK's own timeout covers the initialize request; the race also covers opening an SSE stream.
    await Promise.race([client.connect(transport, { timeout: timeoutMs }), expired]);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

const refusedWith4xx = (error: unknown) =>
  error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;

export interface OpenOptions {
  connectTimeoutMs: number;
  /** The largest message the server may send (MCP_MAX_MESSAGE_MB): a larger one closes the connection. */
  maxMessageBytes: number;
  /** An HTTP reply was refused for its size (the connection is to be closed and the reason shown). */
  onReplyTooLarge(error: McpReplyTooLarge): void;
  /** A new client, its notification handlers set (they must be in place before the first message). */
  makeClient(): Client;
  /** The stdio server's error output, as it arrives: the reason a server that will not start gives. */
  onStderr(text: string): void;
}

/**
 * Closes a connection. A Streamable HTTP session the server gave an id is ended first with DELETE,
 * as the MCP spec asks of a client that leaves, waiting at most `timeoutMs` for the server's answer.
 */
export async function closeConnection(client: Client, timeoutMs: number): Promise<void> {
  const { transport } = client;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([transport.terminateSession().catch(() => {}), waited]);
    clearTimeout(timer);
  }
  await client.close();
}

export async function openConnection(transport: McpTransportConfig, options: OpenOptions): Promise<OpenConnection> {
  const { connectTimeoutMs, makeClient, maxMessageBytes } = options;
  if (transport.type === "stdio") {
    const stdio = new StdioClientTransport({
      command: transport.command,
      args: transport.args,
      env: serverEnvironment(transport.env),
      ...(transport.cwd ? { cwd: transport.cwd } : {}),
      stderr: "pipe",
      // The SDK refuses a line past this before buffering more, then closes the transport.
      maxBufferSize: maxMessageBytes,
    });
    stdio.stderr?.on("data", (chunk: Buffer) => options.onStderr(chunk.toString("utf8")));
    const client = makeClient();
    await connectWithin(client, stdio, connectTimeoutMs);
    return { client, transportInUse: "stdio" };
  }
  const url = new URL(transport.url);
  const requestInit = { headers: transport.headers };
  const fetch = boundedFetch(maxMessageBytes, options.onReplyTooLarge);
  const client = makeClient();
  try {
    await connectWithin(client, new StreamableHTTPClientTransport(url, { requestInit, fetch }), connectTimeoutMs);
    return { client, transportInUse: "streamable-http" };
  } catch (error) {
    if (!refusedWith4xx(error)) throw error;
  }
  const fallback = makeClient();
  await connectWithin(fallback, new SSEClientTransport(url, { requestInit, fetch }), connectTimeoutMs);
  return { client: fallback, transportInUse: "sse" };
}
