import { z } from "zod";
import type { Config } from "@/lib/env-config";
import { MODEL_ROLES, type ModelRole } from "@/lib/llm/model-roles";

/** One optional value per model role, and no other key. */
const perRole = <T extends z.ZodType>(value: T) =>
  z.strictObject(
    Object.fromEntries(MODEL_ROLES.map((role) => [role, value.optional()])) as Record<ModelRole, z.ZodOptional<T>>,
  );

const searchBackends = ["duckduckgo", "searxng"] as const satisfies readonly Config["SEARCH_BACKEND"][];

/** `PATCH /api/settings`: each role's model and keep-alive (null: back to the default), the search backend. */
export const settingsBody = z.object({
  roles: perRole(z.string().trim().max(200).nullable()).optional(),
  keepAlive: perRole(z.string().max(32).nullable()).optional(),
  searchBackend: z.enum(searchBackends).optional(),
});
