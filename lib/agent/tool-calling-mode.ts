import type { Abilities } from "@/lib/llm/types";
import type { AgentMode } from "./types";

/** What a request may ask for: the model's best way (auto), or one way forced. */
export type RequestedToolCalling = "auto" | "native" | "json";

/**
 * How the tool loop calls tools — the one place this is decided. Native function calling when the
 * model can and the request does not ask for JSON; the JSON protocol otherwise. Asking for native
 * calls from a model that cannot make them is refused, not quietly turned into JSON mode.
 */
export function decideToolCalling(
  requested: RequestedToolCalling | undefined,
  abilities: Pick<Abilities, "tool_call">,
): { mode: AgentMode } | { refusal: string } {
  if (requested === "json") return { mode: "json" };
  if (requested === "native" && !abilities.tool_call) {
    return { refusal: 'does not support tool calling, so native mode cannot be used. Use mode "auto" or "json".' };
  }
  return { mode: abilities.tool_call ? "native" : "json" };
}
