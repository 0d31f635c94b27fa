import "server-only";
import { isDeepStrictEqual } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type Config, getConfig } from "@/lib/env-config";
import { type ToolOutcome, toolError } from "@/lib/tools/outcome";
import type { ToolDefinition } from "@/lib/tools/registry";
import { backoffDelay } from "@/lib/util/backoff";
import { McpReplyTooLarge } from "./bounded-reply";
import { closeConnection, describeError, openConnection } from "./connection";
import { qualifyToolNames, trimDescription } from "./naming";
import { resultOutcome } from "./result";
import { readInputSchema } from "./schema";
import {
  type McpConnectionStatus,
  type McpDroppedTool,
  type McpHub,
  type McpServerConfig,
  type McpServerState,
  type McpToolAnnotations,
  type McpToolInfo,
  toolApprovalPolicy,
} from "./types";

/**
 * The MCP hub: one connection per enabled server, opened on first use and kept. A connection that
 * fails or drops is retried after 1 s, 2 s, 4 s… up to `retryMaxMs`; meanwhile the server adds no
 * tools. Each listed tool is a registry tool named `server__tool` whose calls go to the server's
 * current connection, with the per-call timeout and the run's abort as the SDK's cancellation. Each
 * carries its `consent`: its annotations and its approval policy, read from the server's current
 * config at every call (the run's approval gate, `lib/chat/tool-approval.ts`, acts on it).
 * Over 300 lines on purpose: opening, retrying, listing (with its schema caps) and calling all read
 * and change one connection's state; apart, each part would reach into the others'.
 */

export interface McpHubOptions {
  callTimeoutMs: number;
  connectTimeoutMs: number;
  maxArtifactBytes: number;
  /** The largest message a server may send: a tool list or result over it closes the connection. */
  maxMessageBytes: number;
  /** The first wait before a reconnection; it doubles after each failure. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

export function mcpHubOptions(
  config: Pick<Config, "MCP_CALL_TIMEOUT_S" | "MCP_CONNECT_TIMEOUT_S" | "MCP_MAX_ARTIFACT_MB" | "MCP_MAX_MESSAGE_MB">,
): McpHubOptions {
  return {
    callTimeoutMs: config.MCP_CALL_TIMEOUT_S * 1000,
    connectTimeoutMs: config.MCP_CONNECT_TIMEOUT_S * 1000,
    maxArtifactBytes: config.MCP_MAX_ARTIFACT_MB * 1024 * 1024,
    maxMessageBytes: config.MCP_MAX_MESSAGE_MB * 1024 * 1024,
  };
}

const CLIENT_INFO = { name: "ollama-web", version: "1.0.0" };
/** A server that keeps returning cursors is cut off here. */
const MAX_LIST_PAGES = 50;
const STDERR_KEPT = 2000;

interface ListedTool {
  info: McpToolInfo;
  definition: ToolDefinition;
}

interface Entry {
  config: McpServerConfig;
  status: McpConnectionStatus;
  transportInUse?: McpServerState["transportInUse"];
  error?: string;
  tools: ListedTool[];
  /** Listed tools that are not offered, with why. */
  dropped: McpDroppedTool[];
  client: Client | null;
  attempt: Promise<void> | null;
  failures: number;
  retry: { timer: NodeJS.Timeout; at: number } | null;
  /** Removed, changed or shut down: whatever is still in flight for it is discarded. */
  closed: boolean;
  stderr: string;
  /** The first error the connection reported: why it closed, when it closes (an oversized stdio line). */
  transportError: string | null;
  /** The HTTP reply refused for its size, which closed the connection. */
  refusedReply: McpReplyTooLarge | null;
}

const newEntry = (config: McpServerConfig): Entry => ({
  config,
  status: config.enabled ? "idle" : "disabled",
  tools: [],
  dropped: [],
  client: null,
  attempt: null,
  failures: 0,
  retry: null,
  closed: false,
  stderr: "",
  transportError: null,
  refusedReply: null,
});

/** Resolves with the promise, or rejects as soon as the run is stopped (the promise goes on). */
function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

class Hub implements McpHub {
  private entries = new Map<string, Entry>();
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;

  constructor(private readonly options: McpHubOptions) {
    this.retryBaseMs = options.retryBaseMs ?? 1000;
    this.retryMaxMs = options.retryMaxMs ?? 60_000;
  }

  configure(servers: McpServerConfig[]): void {
    const next = new Map<string, Entry>();
    for (const config of servers) {
      const current = this.entries.get(config.name);
      const same =
        current &&
        current.config.enabled === config.enabled &&
        isDeepStrictEqual(current.config.transport, config.transport);
      if (current && same) current.config = config;
      next.set(config.name, current && same ? current : newEntry(config));
    }
    for (const [name, entry] of this.entries) {
      if (next.get(name) !== entry) void this.shutdown(entry);
    }
    this.entries = next;
  }

  states(): McpServerState[] {
    return [...this.entries.values()].map((entry) => ({
      name: entry.config.name,
      status: entry.status,
      ...(entry.status === "connected" && entry.transportInUse ? { transportInUse: entry.transportInUse } : {}),
      ...(entry.error ? { error: entry.error } : {}),
      tools: entry.tools.map(({ info }) => ({
        ...info,
        enabled: !entry.config.disabledTools.includes(info.name),
        approval: toolApprovalPolicy(entry.config.toolApproval, info),
      })),
      ...(entry.dropped.length > 0 ? { droppedTools: entry.dropped } : {}),
      ...(entry.retry ? { nextRetryAt: new Date(entry.retry.at).toISOString() } : {}),
    }));
  }

  async tools(serverNames: readonly string[], signal?: AbortSignal): Promise<ToolDefinition[]> {
    const wanted = [...new Set(serverNames)]
      .map((name) => this.entries.get(name))
      .filter((entry): entry is Entry => entry?.config.enabled === true);
    // A server waiting to reconnect keeps to its schedule.
    const pending = wanted.filter((entry) => entry.status !== "connected" && !entry.retry);
    await untilAborted(Promise.all(pending.map((entry) => this.ensure(entry))), signal);
    // Server names are unique, so qualified names are too; this guards a stored config that broke the rule.
    const tools = new Map<string, ToolDefinition>();
    for (const entry of wanted) {
      if (entry.status !== "connected") continue;
      for (const { info, definition } of entry.tools) {
        if (!entry.config.disabledTools.includes(info.name) && !tools.has(definition.name)) {
          tools.set(definition.name, definition);
        }
      }
    }
    return [...tools.values()];
  }

  async connect(name: string): Promise<McpServerState> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`No MCP server is configured as ${name}`);
    if (entry.config.enabled && !entry.attempt) {
      this.cancelRetry(entry);
      entry.failures = 0;
      this.drop(entry);
      await this.ensure(entry);
    } else if (entry.attempt) {
      await entry.attempt;
    }
    return this.states().find((state) => state.name === name) as McpServerState;
  }

  async close(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries = new Map(entries.map((entry) => [entry.config.name, newEntry(entry.config)]));
    await Promise.all(entries.map((entry) => this.shutdown(entry)));
  }

  /** Connects the entry unless it is connected or connecting; never rejects (failures go to its state). */
  private ensure(entry: Entry): Promise<void> {
    if (entry.status === "connected" || entry.closed) return Promise.resolve();
    entry.attempt ??= this.attempt(entry).finally(() => {
      entry.attempt = null;
    });
    return entry.attempt;
  }

  private async attempt(entry: Entry): Promise<void> {
    entry.status = "connecting";
    entry.stderr = "";
    entry.transportError = null;
    entry.refusedReply = null;
    let client: Client | null = null;
    try {
      const opened = await openConnection(entry.config.transport, {
        connectTimeoutMs: this.options.connectTimeoutMs,
        maxMessageBytes: this.options.maxMessageBytes,
        onReplyTooLarge: (error) => {
          if (!client || entry.client !== client) return;
          entry.refusedReply = error;
          this.fail(entry, error.message);
        },
        makeClient: () => this.makeClient(entry),
        onStderr: (text) => {
          entry.stderr = (entry.stderr + text).slice(-STDERR_KEPT);
        },
      });
      client = opened.client;
      if (entry.closed) {
        await this.closeClient(client);
        return;
      }
      entry.client = client;
      entry.transportInUse = opened.transportInUse;
      const opening = client;
      client.onclose = () => {
        const why = entry.transportError;
        if (entry.client === opening)
          this.fail(entry, why ? `The connection closed: ${why}` : "The connection closed.");
      };
      await this.list(entry, client);
      if (entry.client !== client) return;
      entry.status = "connected";
      entry.error = undefined;
      entry.failures = 0;
    } catch (error) {
      if (entry.closed && client) await this.closeClient(client);
      // A connection that closed while listing has already been recorded, its retry scheduled.
      else if (!entry.retry) this.fail(entry, describeError(error));
    }
  }

  private makeClient(entry: Entry): Client {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    /** A `list_changed` listing runs; another came meanwhile (one more listing follows). */
    let relisting = false;
    let relistAgain = false;
    client.onerror = (error) => {
      if (entry.client === client || entry.client === null) entry.transportError ??= describeError(error);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (entry.client !== client) return;
      // However often a server says so, one listing runs and one more follows for all said meanwhile.
      if (relisting) {
        relistAgain = true;
        return;
      }
      relisting = true;
      try {
        do {
          relistAgain = false;
          try {
            await this.list(entry, client);
          } catch (error) {
            if (entry.client === client) entry.error = `Listing the changed tools failed: ${describeError(error)}`;
          }
        } while (relistAgain && entry.client === client);
      } finally {
        relisting = false;
      }
    });
    return client;
  }

  private async list(entry: Entry, client: Client): Promise<void> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.options.connectTimeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    if (entry.client !== client) return;
    const server = entry.config.name;
    const names = qualifyToolNames(
      server,
      tools.map((tool) => tool.name),
    );
    const seen = new Set<string>();
    const dropped: McpDroppedTool[] = [];
    entry.tools = tools.flatMap((tool) => {
      const qualifiedName = names.get(tool.name);
      if (!qualifiedName || seen.has(tool.name)) return [];
      seen.add(tool.name);
      const inputSchema = readInputSchema(tool.inputSchema);
      if (!inputSchema.ok) {
        console.warn(`[mcp] ${server}: the tool ${tool.name} is not offered. ${inputSchema.reason}`);
        dropped.push({ name: tool.name, reason: inputSchema.reason });
        return [];
      }
      const description = trimDescription(tool.description ?? tool.title);
      const annotations: McpToolAnnotations = { ...tool.annotations };
      const approval = toolApprovalPolicy(entry.config.toolApproval, { name: tool.name, annotations });
      const info = { name: tool.name, qualifiedName, description, enabled: true, annotations, approval };
      const definition: ToolDefinition = {
        name: qualifiedName,
        description,
        schema: { jsonSchema: inputSchema.schema },
        paged: false,
        consent: {
          server,
          toolName: tool.name,
          annotations,
          // The server's config as it is now: an admin's change applies to the runs already going.
          policy: () =>
            toolApprovalPolicy(this.entries.get(server)?.config.toolApproval ?? entry.config.toolApproval, info),
        },
        execute: (args, context) => this.call(server, info, args, context.signal),
      };
      return [{ info, definition }];
    });
    entry.dropped = dropped;
  }

  /** One tool call on the server's current connection (the config may have changed since the run began). */
  private async call(server: string, tool: McpToolInfo, args: unknown, signal: AbortSignal): Promise<ToolOutcome> {
    const entry = this.entries.get(server);
    if (!entry?.config.enabled) return toolError("tool_failed", `The MCP server ${server} is no longer available.`);
    if (entry.config.disabledTools.includes(tool.name)) {
      return toolError("tool_failed", `The tool ${tool.qualifiedName} has been switched off.`);
    }
    if (entry.status !== "connected" && !entry.retry) await untilAborted(this.ensure(entry), signal);
    const { client } = entry;
    if (!client || entry.status !== "connected") {
      return toolError("tool_failed", `The MCP server ${server} is not connected: ${entry.error ?? "unknown error"}`);
    }
    const { callTimeoutMs, maxArtifactBytes } = this.options;
    try {
      const result = await client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }, undefined, {
        signal,
        timeout: callTimeoutMs,
      });
      return resultOutcome(tool.qualifiedName, result as CallToolResult, { maxArtifactBytes });
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return toolError(
          "timeout",
          `${tool.qualifiedName} did not answer within ${callTimeoutMs / 1000} s and was cancelled. Try a smaller request or another tool.`,
        );
      }
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
        return toolError("tool_failed", `${tool.qualifiedName} failed: ${error.message}`);
      }
      if (entry.client === client) this.fail(entry, describeError(error));
      // The model may read why the cap refused it (a smaller request may pass); other reasons are for admins.
      const refused = error instanceof McpReplyTooLarge ? error : entry.refusedReply;
      const why = refused ? ` ${refused.message}` : "";
      return toolError("tool_failed", `${tool.qualifiedName} failed: the connection to ${server} broke.${why}`);
    }
  }

  /** Records the failure, closes what is left of the connection and schedules the next attempt. */
  private fail(entry: Entry, message: string): void {
    if (entry.closed) return;
    const said = entry.stderr.trim().split("\n").pop();
    entry.status = "error";
    entry.error = said ? `${message} The server wrote: ${said}` : message;
    this.drop(entry);
    this.cancelRetry(entry);
    const delay = backoffDelay(entry.failures, { firstMs: this.retryBaseMs, maxMs: this.retryMaxMs });
    entry.failures++;
    const timer = setTimeout(() => {
      entry.retry = null;
      void this.ensure(entry);
    }, delay);
    timer.unref();
    entry.retry = { timer, at: Date.now() + delay };
  }

  /** Forgets the entry's connection and closes it (its close is then not a failure). */
  private drop(entry: Entry): void {
    const { client } = entry;
    entry.client = null;
    if (entry.status === "connected") entry.status = "idle";
    if (client) void this.closeClient(client);
  }

  /** Closes a connection the hub no longer uses; its failure to close is nothing to act on. */
  private closeClient(client: Client): Promise<void> {
    return closeConnection(client, this.options.connectTimeoutMs).catch(() => {});
  }

  private cancelRetry(entry: Entry): void {
    if (entry.retry) clearTimeout(entry.retry.timer);
    entry.retry = null;
  }

  private async shutdown(entry: Entry): Promise<void> {
    entry.closed = true;
    this.cancelRetry(entry);
    const { client } = entry;
    entry.client = null;
    if (client) await this.closeClient(client);
  }
}

/** A hub with the configured limits (MCP_CALL_TIMEOUT_S, MCP_CONNECT_TIMEOUT_S, MCP_MAX_ARTIFACT_MB, MCP_MAX_MESSAGE_MB) unless given. */
export function createMcpHub(options: Partial<McpHubOptions> = {}): McpHub {
  return new Hub({ ...mcpHubOptions(getConfig()), ...options });
}
