import "server-only";
import fs from "node:fs";
import type { Db } from "@/lib/db/client";
import { listStoredServers } from "@/lib/db/mcp-servers";
import { readRevision } from "@/lib/db/settings-revision";
import { getConfig } from "@/lib/env-config";
import { processSlot } from "@/lib/util/process-singleton";
import { type McpConfigProblem, parseMcpConfig } from "./config-file";
import { createMcpHub, mcpHubOptions } from "./hub";
import { mcpToolGroup, WEB_TOOL_GROUP } from "./tool-groups";
import type { McpConnectionStatus, McpHub, McpServerConfig } from "./types";

/**
 * The server's one MCP hub (docs/tools.md, "MCP tools"), configured from the servers stored
 * on the settings page and those of the `MCP_CONFIG` file, which is read once, at first use. A name
 * in both is the file's. Each use reads the settings revision (lib/db/settings-revision.ts) and, when
 * another instance changed the stored servers since, configures the hub from them again: a server
 * switched off anywhere is off here at the next run, or the next call of its tools.
 */

/** The `MCP_CONFIG` file as read: its path, and why it could not be used (the app runs without it). */
export interface McpFileStatus {
  path: string;
  error?: string;
}

export interface ServerMcp {
  hub: McpHub;
  file: McpFileStatus | null;
  /** The file's servers (origin `file`). */
  fileServers: McpServerConfig[];
  /** What the hub runs: the stored servers the file does not name, and the file's. */
  servers: McpServerConfig[];
  /** Stored servers hidden by a file server of the same name. */
  shadowed: string[];
  /** The settings revision read before the stored servers the hub runs were. */
  revision: string | null;
}

const processMcp = processSlot<ServerMcp>("mcp");
/** Tests' own hub (`resetServerMcpForTests`). */
const hubFactory = processSlot<() => McpHub>("mcpHubFactory");

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The file's servers; one with a problem is left out and named in the error, the others are used. */
function readMcpFile(path: string): { servers: McpServerConfig[]; status: McpFileStatus } {
  let text: string;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch (error) {
    return { servers: [], status: { path, error: `MCP_CONFIG ${path} cannot be read: ${message(error)}` } };
  }
  const { servers, problems } = parseMcpConfig(text, "file");
  const error = describeProblems(problems);
  return { servers, status: error ? { path, error: `MCP_CONFIG ${path}: ${error}` } : { path } };
}

export const describeProblems = (problems: McpConfigProblem[]) =>
  problems
    .map((problem) => (problem.server === null ? problem.message : `${problem.server}: ${problem.message}`))
    .join(" ");

function merge(stored: McpServerConfig[], fromFile: McpServerConfig[]): Pick<ServerMcp, "servers" | "shadowed"> {
  const fileNames = new Set(fromFile.map((server) => server.name));
  return {
    servers: [...stored.filter((server) => !fileNames.has(server.name)), ...fromFile],
    shadowed: stored.filter((server) => fileNames.has(server.name)).map((server) => server.name),
  };
}

function newHub(): McpHub {
  return hubFactory.get()?.() ?? createMcpHub(mcpHubOptions(getConfig()));
}

/**
 * Configures the hub from the stored servers as they are now. The revision is read first, so a
 * hub configured from older rows also holds an older revision, and the next use reads them again.
 */
async function reload(db: Db, mcp: ServerMcp): Promise<void> {
  const revision = await readRevision(db);
  const stored = await listStoredServers(db);
  Object.assign(mcp, merge(stored, mcp.fileServers), { revision });
  mcp.hub.configure(mcp.servers);
}

/** The hub and the servers it runs, made (and the file read) on first use, configured again when the stored servers changed. */
export async function getServerMcp(db: Db): Promise<ServerMcp> {
  const current = processMcp.get();
  if (current) {
    if ((await readRevision(db)) !== current.revision) await reload(db, current);
    return current;
  }
  const revision = await readRevision(db);
  const stored = await listStoredServers(db);
  // Another call may have made it meanwhile: there is one hub.
  const made = processMcp.get();
  if (made) return made;
  const path = getConfig().MCP_CONFIG;
  const file = path ? readMcpFile(path) : null;
  if (file?.status.error) console.error(`[mcp] ${file.status.error}`);
  const fileServers = file?.servers ?? [];
  const mcp: ServerMcp = {
    hub: newHub(),
    file: file?.status ?? null,
    fileServers,
    ...merge(stored, fileServers),
    revision,
  };
  mcp.hub.configure(mcp.servers);
  processMcp.set(mcp);
  return mcp;
}

/** After an admin changed the stored servers: the hub closes removed or changed ones, starts new ones lazily. */
export async function reconfigureServerMcp(db: Db): Promise<ServerMcp> {
  const mcp = await getServerMcp(db);
  await reload(db, mcp);
  return mcp;
}

/** A tool group as the composer lists it; no transport, no error text (those are for admins). */
export type ToolGroup =
  | { id: typeof WEB_TOOL_GROUP; kind: "web" }
  | { id: string; kind: "mcp"; name: string; status: McpConnectionStatus; toolCount: number };

/** The built-in web tools, then each enabled MCP server. */
export async function listToolGroups(db: Db): Promise<ToolGroup[]> {
  const mcp = await getServerMcp(db);
  const states = new Map(mcp.hub.states().map((state) => [state.name, state]));
  const servers = mcp.servers.filter((server) => server.enabled);
  return [
    { id: WEB_TOOL_GROUP, kind: "web" },
    ...servers.map((server): ToolGroup => {
      const state = states.get(server.name);
      return {
        id: mcpToolGroup(server.name),
        kind: "mcp",
        name: server.name,
        status: state?.status ?? "idle",
        toolCount: state?.tools.filter((tool) => tool.enabled).length ?? 0,
      };
    }),
  ];
}

/** Shutdown: closes every connection (stdio servers are stopped). */
export async function closeServerMcp(): Promise<void> {
  const mcp = processMcp.get();
  processMcp.set(undefined);
  await mcp?.hub.close();
}

/** Tests: a hub of their own (or the real one again with `undefined`); the next use starts afresh. */
export async function resetServerMcpForTests(factory?: () => McpHub): Promise<void> {
  await closeServerMcp();
  hubFactory.set(factory);
}
