import type { AgentToolbox } from "@/lib/agent/types";
import type { ToolContext, ToolRegistry } from "@/lib/tools/registry";

/** The engine's view of a registry, bound to one run's conversation. */
export function registryToolbox(
  registry: ToolRegistry,
  context: Omit<ToolContext, "signal">,
  maxResultChars: number,
): AgentToolbox {
  return {
    specs: () => registry.specs(),
    execute: (name, args, signal, call) =>
      registry.execute(name, args, { ...context, signal, ...(call ? { call } : {}) }, { maxResultChars }),
    select: (names) => registryToolbox(registry.filtered(names), context, maxResultChars),
  };
}
