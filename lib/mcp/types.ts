import type { ToolDefinition } from "@/lib/tools/registry";

/**
 * The MCP contract between the hub (connections, tools, calls: `lib/mcp/hub.ts`) and the app
 * (stored settings, the `MCP_CONFIG` file, the admin API and UI, per-conversation tool groups).
 * How it works is in docs/architecture.md, "MCP tools"; the trust model in docs/security.md.
 */

/** How the app reaches a server. `http` tries Streamable HTTP first and falls back to the older SSE transport. */
export type McpTransportConfig =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: "http"; url: string; headers: Record<string, string> };

/** One configured MCP server: from the settings page (stored) or the `MCP_CONFIG` file (read-only in the UI). */
export interface McpServerConfig {
  /**
   * Unique, the tools' namespace (`name__tool`): letters, digits, `-` and single `_`, at most 32
   * characters (`normaliseServerName` / `serverNameProblem` in config-file.ts).
   */
  name: string;
  enabled: boolean;
  transport: McpTransportConfig;
  /** Tools an admin switched off, by their name on the server. */
  disabledTools: string[];
  origin: "settings" | "file";
}

export type McpConnectionStatus = "disabled" | "idle" | "connecting" | "connected" | "error";

export interface McpToolInfo {
  /** The tool's name on its server. */
  name: string;
  /** The name the model sees: `server__tool`. */
  qualifiedName: string;
  description: string;
  enabled: boolean;
}

/** A listed tool the hub does not offer: its schema is too costly to read or too long to send (lib/mcp/schema.ts). */
export interface McpDroppedTool {
  /** The tool's name on its server. */
  name: string;
  reason: string;
}

export interface McpServerState {
  name: string;
  status: McpConnectionStatus;
  /** The transport in use once connected: `sse` when the Streamable HTTP attempt fell back. */
  transportInUse?: "stdio" | "streamable-http" | "sse";
  /** The last connection or listing error, as a sentence. */
  error?: string;
  /** The server's tools as last listed (empty before the first connection). */
  tools: McpToolInfo[];
  /** Listed tools left out, with why (absent when none is). */
  droppedTools?: McpDroppedTool[];
  /** While waiting to reconnect: when the next attempt is due (ISO time). */
  nextRetryAt?: string;
}

export interface McpHub {
  /** Replaces the configured servers: new ones start lazily, removed or changed ones are closed. */
  configure(servers: McpServerConfig[]): void;
  /** Every configured server's state, without connecting. */
  states(): McpServerState[];
  /**
   * The enabled tools of the named enabled servers as registry tools, connecting those not yet
   * connected (in parallel, with a bounded wait). A server that cannot connect adds no tool; its
   * error shows in `states()`.
   */
  tools(serverNames: readonly string[], signal?: AbortSignal): Promise<ToolDefinition[]>;
  /** Connects (or reconnects) one server now and returns its state: the settings page's "Test". */
  connect(name: string): Promise<McpServerState>;
  /** Closes every connection (shutdown). */
  close(): Promise<void>;
}
