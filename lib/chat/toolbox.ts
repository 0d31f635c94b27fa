import type { AgentToolbox } from "@/lib/agent/types";
import { renderObservation } from "@/lib/tools/outcome";
import type { ToolContext, ToolRegistry } from "@/lib/tools/registry";

/** The engine's view of a registry, bound to one run's conversation. */
export function registryToolbox(
  registry: ToolRegistry,
  context: Omit<ToolContext, "signal">,
  maxResultChars: number,
): AgentToolbox {
  return {
    specs: () => registry.specs(),
    async execute(name, args, signal) {
      const outcome = await registry.execute(name, args, { ...context, signal }, { maxResultChars });
      return { output: renderObservation(outcome), ok: outcome.ok };
    },
    select: (names) => registryToolbox(registry.filtered(names), context, maxResultChars),
  };
}
