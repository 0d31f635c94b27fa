import { z } from "zod";
import type { Config } from "@/lib/env-config";
import { abilityOverrideSchema } from "@/lib/llm/ability-override";
import { MODEL_ROLES, type ModelRole } from "@/lib/llm/model-roles";

/** One optional value per model role, and no other key. */
const perRole = <T extends z.ZodType>(value: T) =>
  z.strictObject(
    Object.fromEntries(MODEL_ROLES.map((role) => [role, value.optional()])) as Record<ModelRole, z.ZodOptional<T>>,
  );

const searchBackends = ["duckduckgo", "searxng"] as const satisfies readonly Config["SEARCH_BACKEND"][];

/**
 * `PATCH /api/settings`: each role's model and keep-alive (null: back to the default), the search
 * backend, and per `<model>@<label>` of an OpenAI-compatible server what it can do (null: the probe's
 * answer again).
 */
export const settingsBody = z.object({
  roles: perRole(z.string().trim().max(200).nullable()).optional(),
  keepAlive: perRole(z.string().max(32).nullable()).optional(),
  searchBackend: z.enum(searchBackends).optional(),
  modelAbilities: z.record(z.string().trim().min(1).max(240), abilityOverrideSchema.nullable()).optional(),
});
