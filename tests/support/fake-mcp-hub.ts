import { z } from "zod";
import { type McpHub, type McpServerConfig, type McpServerState, toolApprovalPolicy } from "@/lib/mcp/types";
import { toolOk } from "@/lib/tools/outcome";
import { defineTool } from "@/lib/tools/registry";

/**
 * An in-memory MCP hub for tests of the app's side (storage, admin API, tool groups): each server
 * has the tools `tools[name]` names (default `echo`), and a name in `failing` never connects. Its
 * tools are read-only (`readOnlyHint: true`) but those `writeTools` names (qualified), which act;
 * every call that ran is in `calls`.
 */
export interface FakeMcpHub extends McpHub {
  configured: McpServerConfig[][];
  closed: number;
  toolRequests: string[][];
  calls: { tool: string; text: string }[];
}

export function fakeMcpHub({
  tools = {},
  failing = [],
  writeTools = [],
}: {
  tools?: Record<string, string[]>;
  failing?: string[];
  writeTools?: string[];
} = {}): FakeMcpHub {
  let servers: McpServerConfig[] = [];
  const connected = new Set<string>();
  const toolsOf = (server: McpServerConfig) => tools[server.name] ?? ["echo"];
  const state = (server: McpServerConfig): McpServerState => {
    if (!server.enabled) return { name: server.name, status: "disabled", tools: [] };
    if (failing.includes(server.name)) return { name: server.name, status: "error", error: "spawn ENOENT", tools: [] };
    if (!connected.has(server.name)) return { name: server.name, status: "idle", tools: [] };
    return {
      name: server.name,
      status: "connected",
      transportInUse: server.transport.type === "stdio" ? "stdio" : "streamable-http",
      tools: toolsOf(server).map((name) => {
        const qualifiedName = `${server.name}__${name}`;
        const annotations = writeTools.includes(qualifiedName) ? { destructiveHint: true } : { readOnlyHint: true };
        return {
          name,
          qualifiedName,
          description: `The ${name} tool of ${server.name}`,
          enabled: !server.disabledTools.includes(name),
          annotations,
          approval: toolApprovalPolicy(server.toolApproval, { name, annotations }),
        };
      }),
    };
  };
  const hub: FakeMcpHub = {
    configured: [],
    closed: 0,
    toolRequests: [],
    calls: [],
    configure(next) {
      servers = next;
      hub.configured.push(next);
      for (const name of connected) if (!next.some((server) => server.name === name)) connected.delete(name);
    },
    states: () => servers.map(state),
    async tools(names) {
      hub.toolRequests.push([...names]);
      const chosen = servers.filter((s) => names.includes(s.name) && s.enabled && !failing.includes(s.name));
      for (const server of chosen) connected.add(server.name);
      return chosen.flatMap((server) =>
        state(server)
          .tools.filter((tool) => tool.enabled)
          .map((tool) =>
            defineTool({
              name: tool.qualifiedName,
              description: tool.description,
              schema: z.object({ text: z.string() }),
              paged: false,
              consent: {
                server: server.name,
                toolName: tool.name,
                annotations: tool.annotations,
                policy: () => {
                  const current = servers.find((s) => s.name === server.name) ?? server;
                  return toolApprovalPolicy(current.toolApproval, tool);
                },
              },
              execute: async ({ text }) => {
                hub.calls.push({ tool: tool.qualifiedName, text });
                return toolOk(`${tool.qualifiedName}: ${text}`);
              },
            }),
          ),
      );
    },
    async connect(name) {
      const server = servers.find((s) => s.name === name);
      if (!server) throw new Error(`unknown server ${name}`);
      if (server.enabled && !failing.includes(name)) connected.add(name);
      return state(server);
    },
    async close() {
      hub.closed++;
      connected.clear();
    },
  };
  return hub;
}
