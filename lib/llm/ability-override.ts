import { z } from "zod";
import type { Abilities } from "./types";

/**
 * An admin's word on what a model of an OpenAI-compatible server can do, which wins over the probe
 * (tool calling, JSON mode) and is the only source for vision and thinking, which these servers do
 * not tell. Keyed by the model's name in the app (`<model>@<label>`). Framework-free: the settings
 * route and the settings page share it.
 */
export const abilityOverrideSchema = z.strictObject({
  tool_call: z.boolean().optional(),
  json_mode: z.boolean().optional(),
  vision: z.boolean().optional(),
  thinking: z.boolean().optional(),
});

export type AbilityOverride = Partial<Abilities>;
