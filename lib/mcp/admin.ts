import "server-only";
import type { Db } from "@/lib/db/client";
import { findStoredServer, type McpTransportPatch, serverNotFound } from "@/lib/db/mcp-servers";
import { type Config, getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { type McpConfigProblem, parseMcpConfig } from "./config-file";
import { describeProblems, getServerMcp, type McpFileStatus } from "./server-hub";
import type { McpServerConfig, McpServerState, McpToolApproval, McpTransportConfig } from "./types";

/**
 * What the settings page shows of the MCP servers. Env and header values are secrets: the browser
 * gets their names with `null` values, never the values.
 */

export interface McpServerView {
  name: string;
  origin: McpServerConfig["origin"];
  enabled: boolean;
  transport: McpTransportPatch;
  disabledTools: string[];
  /** Which tools run at once, ask the user or are refused; each tool's resulting policy is in `state.tools`. */
  toolApproval: McpToolApproval;
  state: McpServerState;
  /** A stored server a server of the `MCP_CONFIG` file with the same name replaces. */
  shadowedByFile: boolean;
}

export interface McpServersView {
  servers: McpServerView[];
  file: McpFileStatus | null;
  /** Whether stdio servers may be added or changed here (MCP_STDIO_FROM_UI=1); else only in the MCP_CONFIG file. */
  stdioFromUi: boolean;
}

const hidden = (values: Record<string, string>) => Object.fromEntries(Object.keys(values).map((key) => [key, null]));

export function maskTransport(transport: McpTransportConfig): McpTransportPatch {
  return transport.type === "stdio"
    ? { ...transport, env: hidden(transport.env) }
    : { ...transport, headers: hidden(transport.headers) };
}

export function serverView(
  server: McpServerConfig,
  state: McpServerState | undefined,
  shadowedByFile = false,
): McpServerView {
  return {
    name: server.name,
    origin: server.origin,
    enabled: server.enabled,
    transport: maskTransport(server.transport),
    disabledTools: server.disabledTools,
    toolApproval: server.toolApproval,
    state: !shadowedByFile && state ? state : { name: server.name, status: "disabled", tools: [] },
    shadowedByFile,
  };
}

/** Every server, file and stored (those the file replaces included, marked), with its state. */
export async function listServerViews(db: Db, stored: McpServerConfig[]): Promise<McpServersView> {
  const mcp = await getServerMcp(db);
  const states = new Map(mcp.hub.states().map((state) => [state.name, state]));
  const shadowed = new Set(mcp.shadowed);
  const views = [
    ...mcp.fileServers.map((server) => serverView(server, states.get(server.name))),
    ...stored.map((server) => serverView(server, states.get(server.name), shadowed.has(server.name))),
  ];
  return { servers: views, file: mcp.file, stdioFromUi: stdioFromUi() };
}

export const stdioFromUi = (config: Pick<Config, "MCP_STDIO_FROM_UI"> = getConfig()) =>
  config.MCP_STDIO_FROM_UI === "1";

/**
 * A stdio server is a command this machine runs as the app's user: from the settings page and API it
 * may be added, imported or have its transport changed only with MCP_STDIO_FROM_UI=1, so whoever holds
 * an admin session (the first visitor of a fresh install, a stolen cookie) does not get to run programs.
 * Enabling, disabling, tool switches and removal of a stored one stay open: they start nothing new.
 */
export function refuseStdioFromUi(transports: readonly { type: string }[], config = getConfig()): void {
  if (stdioFromUi(config) || !transports.some((transport) => transport.type === "stdio")) return;
  throw new AppError(
    "forbidden:mcp_stdio",
    "Stdio MCP servers (commands this server runs) cannot be added or changed from the settings page here: set MCP_STDIO_FROM_UI=1, or list the server in the MCP_CONFIG file.",
  );
}

/** A new server may not take a name the `MCP_CONFIG` file uses. */
export async function refuseFileName(db: Db, name: string): Promise<void> {
  if ((await getServerMcp(db)).fileServers.some((server) => server.name === name)) {
    throw new AppError("conflict:mcp_file_server", `The MCP_CONFIG file already has a server named ${name}.`, {
      details: { name },
    });
  }
}

/** A stored server to edit or remove; one only the `MCP_CONFIG` file names is edited in the file. */
export async function editableServer(db: Db, name: string): Promise<McpServerConfig> {
  const stored = await findStoredServer(db, { name });
  if (stored) return stored;
  if ((await getServerMcp(db)).fileServers.some((server) => server.name === name)) {
    throw new AppError(
      "conflict:mcp_file_server",
      `The MCP server ${name} is set in the MCP_CONFIG file: change it there and restart the app.`,
      { details: { name } },
    );
  }
  throw serverNotFound(name);
}

/**
 * The servers of a pasted `{"mcpServers": {...}}` document, each checked: 400 with every server's
 * problem (`details.problems`: `[{server, message}]`) when any has one, so nothing half-imports.
 */
export async function parseImport(db: Db, text: string): Promise<McpServerConfig[]> {
  const { servers, problems } = parseMcpConfig(text, "settings");
  const fileNames = new Set((await getServerMcp(db)).fileServers.map((server) => server.name));
  const all: McpConfigProblem[] = [
    ...problems,
    ...servers
      .filter((server) => fileNames.has(server.name))
      .map((server) => ({ server: server.name, message: "The MCP_CONFIG file already has a server of this name." })),
  ];
  if (all.length > 0) {
    throw new AppError("bad_request:mcp_import", `Nothing was imported. ${describeProblems(all)}`, {
      details: { problems: all },
    });
  }
  if (servers.length === 0) throw new AppError("bad_request:mcp_import", "The pasted mcpServers names no server.");
  return servers;
}
