/**
 * Tool groups a conversation can switch off: `web` (the built-in tools) and each MCP server as
 * `mcp:<name>`. Framework-free: the composer and the server read the same ids.
 */

export const WEB_TOOL_GROUP = "web";

/** A group id as stored: `web`, or `mcp:` and a server name (lib/mcp/config-file.ts says which names). */
export const TOOL_GROUP_ID = /^(web|mcp:[A-Za-z0-9_-]{1,32})$/;

export const mcpToolGroup = (server: string) => `mcp:${server}`;

/** What a run of a conversation gets: the built-in tools or not, and which enabled MCP servers. */
export function activeToolGroups(
  disabledGroups: readonly string[],
  enabledServers: readonly string[],
): { web: boolean; servers: string[] } {
  const off = new Set(disabledGroups);
  return {
    web: !off.has(WEB_TOOL_GROUP),
    servers: enabledServers.filter((name) => !off.has(mcpToolGroup(name))),
  };
}
