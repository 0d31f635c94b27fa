import type { ToolDefinition } from "@/lib/tools/registry";

/**
 * The MCP contract between the hub (connections, tools, calls: `lib/mcp/hub.ts`) and the app
 * (stored settings, the `MCP_CONFIG` file, the admin API and UI, per-conversation tool groups).
 * How it works is in docs/tools.md, "MCP tools"; the trust model in docs/security.md.
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
  /**
   * Which of its tools run at once, ask the user first or are refused (docs/security.md, "Tools that act need
   * the user's consent").
   */
  toolApproval: McpToolApproval;
  origin: "settings" | "file";
}

/**
 * What a call of a tool needs: `allow` runs it at once, `ask` waits for the user's approval in the
 * run's trail, `deny` refuses it with an observation for the model.
 */
export const toolApprovalPolicies = ["ask", "allow", "deny"] as const;
export type ToolApprovalPolicy = (typeof toolApprovalPolicies)[number];

/**
 * An admin's approval settings for one server: `default` for all its tools (null: by the tool's own
 * annotations, `allow` for a tool marked `readOnlyHint: true`, `ask` for any other), and overrides
 * per tool, by its name on the server.
 */
export interface McpToolApproval {
  default: ToolApprovalPolicy | null;
  tools: Record<string, ToolApprovalPolicy>;
}

export const noToolApproval = (): McpToolApproval => ({ default: null, tools: {} });

/** The MCP tool annotations the app reads (the spec's hints; a server may send others, kept as given). */
export type McpToolAnnotations = Record<string, unknown> & {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** A tool's policy: the admin's override for it, else the server's default, else by its annotations. */
export function toolApprovalPolicy(
  approval: McpToolApproval,
  tool: { name: string; annotations: McpToolAnnotations },
): ToolApprovalPolicy {
  return (
    (Object.hasOwn(approval.tools, tool.name) ? approval.tools[tool.name] : undefined) ??
    approval.default ??
    (tool.annotations.readOnlyHint === true ? "allow" : "ask")
  );
}

export type McpConnectionStatus = "disabled" | "idle" | "connecting" | "connected" | "error";

export interface McpToolInfo {
  /** The tool's name on its server. */
  name: string;
  /** The name the model sees: `server__tool`. */
  qualifiedName: string;
  description: string;
  enabled: boolean;
  /** The tool's MCP annotations as its server listed them (empty when it gave none). */
  annotations: McpToolAnnotations;
  /** What a call needs, from the server's `toolApproval` and the annotations. */
  approval: ToolApprovalPolicy;
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
