import type { Config } from "@/lib/env-config";

/**
 * The roles a model can play and the environment variable that sets each. Framework-free: the
 * server's settings and the settings page share it.
 */
export const MODEL_ROLES = ["general", "fast", "reasoning", "vision"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export const ROLE_ENV = {
  general: "MODEL_GENERAL",
  fast: "MODEL_FAST",
  reasoning: "MODEL_REASONING",
  vision: "MODEL_VISION",
} as const satisfies Record<ModelRole, keyof Config & string>;
