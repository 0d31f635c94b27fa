import { fileURLToPath } from "node:url";
import { parseConfig } from "@/lib/env-config";
import type { McpHubOptions } from "@/lib/mcp/hub";
import { type McpServerConfig, noToolApproval } from "@/lib/mcp/types";
import { renderObservation, type ToolOutcome } from "@/lib/tools/outcome";
import { type ToolContext, type ToolDefinition, ToolRegistry } from "@/lib/tools/registry";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";

/** Configs and calls for hub tests against `tests/support/mcp-test-server.mjs`. */

export const TEST_SERVER = fileURLToPath(new URL("./mcp-test-server.mjs", import.meta.url));

export const HUB_OPTIONS: McpHubOptions = {
  callTimeoutMs: 10_000,
  connectTimeoutMs: 10_000,
  maxArtifactBytes: 1024 * 1024,
  maxMessageBytes: 8 * 1024 * 1024,
};

/** The test server as a stdio child of this Node, with extra arguments and env. */
export function stdioServer(
  name: string,
  { args = [], env = {}, ...rest }: { args?: string[]; env?: Record<string, string> } & Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name,
    enabled: true,
    transport: { type: "stdio", command: process.execPath, args: [TEST_SERVER, ...args], env },
    disabledTools: [],
    toolApproval: noToolApproval(),
    origin: "settings",
    ...rest,
  };
}

export function httpServer(name: string, url: string, headers: Record<string, string> = {}): McpServerConfig {
  return {
    name,
    enabled: true,
    transport: { type: "http", url, headers },
    disabledTools: [],
    toolApproval: noToolApproval(),
    origin: "settings",
  };
}

export const toolContext = (signal = new AbortController().signal): ToolContext => ({
  conversationId: "c1",
  signal,
  language: "en",
  urlGuard: new UrlLeakGuard(parseConfig({})),
});

/** Runs one of the hub's tools through a registry, as a run does. */
export async function callTool(
  tools: ToolDefinition[],
  name: string,
  args: unknown,
  { signal, maxResultChars = 6000 }: { signal?: AbortSignal; maxResultChars?: number } = {},
): Promise<ToolOutcome & { observation: string }> {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const outcome = await registry.execute(name, args, toolContext(signal), { maxResultChars });
  return { ...outcome, observation: renderObservation(outcome) };
}
