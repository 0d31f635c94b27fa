import type { AgentToolbox } from "@/lib/agent/types";
import { isErrorOutput } from "@/lib/tools/outcome";
import type { ToolContext, ToolRegistry } from "@/lib/tools/registry";

/** The engine's view of a registry, bound to one run's conversation (SPEC §11 per-run wrappers). */
export function registryToolbox(
  registry: ToolRegistry,
  context: Omit<ToolContext, "signal">,
  maxResultChars: number,
): AgentToolbox {
  return {
    specs: () => registry.specs(),
    async execute(name, args, signal) {
      const output = await registry.execute(name, args, { ...context, signal }, { maxResultChars });
      return { output, ok: !isErrorOutput(output) };
    },
    select: (names) => registryToolbox(registry.filtered(names), context, maxResultChars),
  };
}
