import type { AgentToolbox } from "@/lib/agent/types";
import type { ToolSpec } from "@/lib/llm/types";
import { type ToolOutcome, toolError, toolOk } from "@/lib/tools/outcome";

/** A toolbox of plain functions for engine tests, recording when each call starts and ends. */

export type FakeTool = (
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<string | ToolOutcome> | string | ToolOutcome;

export interface FakeToolbox extends AgentToolbox {
  log: string[];
  calls: { name: string; args: unknown }[];
}

export function fakeToolbox(tools: Record<string, FakeTool>, descriptions: Record<string, string> = {}): FakeToolbox {
  const log: string[] = [];
  const calls: { name: string; args: unknown }[] = [];
  const make = (names: string[]): FakeToolbox => ({
    log,
    calls,
    specs: (): ToolSpec[] =>
      names.map((name) => ({
        name,
        description: descriptions[name] ?? `The ${name} tool`,
        parameters: { type: "object", properties: { query: { type: "string" } } },
      })),
    async execute(name, args, signal) {
      calls.push({ name, args });
      const tool = names.includes(name) ? tools[name] : undefined;
      if (!tool) return toolError("unknown_tool", `Unknown tool: ${name}`);
      log.push(`start ${name}`);
      try {
        const result = await tool(args as Record<string, unknown>, signal);
        return typeof result === "string" ? toolOk(result) : result;
      } catch (error) {
        return toolError("internal", `${name} failed: ${(error as Error).message}`);
      } finally {
        log.push(`end ${name}`);
      }
    },
    select: (selected) => make(names.filter((name) => selected.includes(name))),
  });
  return make(Object.keys(tools));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
