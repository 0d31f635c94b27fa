import { z } from "@/lib/protocol/zod";

/**
 * A conversation's own settings (docs/architecture.md, "A chat's own settings"): the user's
 * instructions and the sampling options sent to Ollama. Framework-free: the routes validate with
 * it, the engine reads it, the browser's settings panel and presets edit it. An unset field means
 * "the model's default" (for `numCtx`: the server's NUM_CTX, capped by the model).
 */

export interface ChatSettings {
  /** The user's own instructions, added to the system prompt of every model call that answers. */
  instructions?: string;
  temperature?: number;
  topP?: number;
  seed?: number;
  /** The context window asked for; never above the server's NUM_CTX nor the model's own length. */
  numCtx?: number;
  /** false: a thinking model answers without thinking. Unset or true: it thinks. */
  think?: boolean;
  /**
   * Research mode starts researching its own brief at once, without showing the outline to edit or
   * asking clarifying questions first (docs/research.md, "Research mode"). Unset or false: it asks.
   */
  researchAutoStart?: boolean;
  /**
   * `search_files` searches every file of the chat's owner, not only the chat's own and its
   * project's (docs/architecture.md, "The library index"). Unset or false: the chat's and project's.
   */
  searchAllFiles?: boolean;
}

export const SETTINGS_RANGES = {
  temperature: { min: 0, max: 2 },
  topP: { min: 0, max: 1 },
  seed: { min: 0, max: 2_147_483_647 },
  numCtx: { min: 512 },
} as const;

export interface SettingsLimits {
  /** MAX_INSTRUCTIONS_CHARS */
  maxInstructionsChars: number;
  /** NUM_CTX: the largest context a chat may ask for. */
  maxNumCtx: number;
}

/** zod rejects NaN and ±Infinity for `z.number()`; JSON cannot carry them anyway. */
const between = (min: number, max: number) => z.number().min(min).max(max);

export function chatSettingsSchema({ maxInstructionsChars, maxNumCtx }: SettingsLimits) {
  const { temperature, topP, seed, numCtx } = SETTINGS_RANGES;
  return z
    .strictObject({
      instructions: z
        .string()
        .max(maxInstructionsChars, `must be at most ${maxInstructionsChars} characters (MAX_INSTRUCTIONS_CHARS)`)
        .optional(),
      temperature: between(temperature.min, temperature.max).optional(),
      topP: between(topP.min, topP.max).optional(),
      seed: z.number().int().min(seed.min).max(seed.max).optional(),
      numCtx: z
        .number()
        .int()
        .min(numCtx.min)
        .max(maxNumCtx, `must be at most ${maxNumCtx}, the server's NUM_CTX`)
        .optional(),
      think: z.boolean().optional(),
      researchAutoStart: z.boolean().optional(),
      searchAllFiles: z.boolean().optional(),
    })
    .transform(normalizeSettings);
}

/** The settings without empty instructions: what is stored and sent. */
export function normalizeSettings(settings: ChatSettings): ChatSettings {
  const { instructions, ...rest } = settings;
  const trimmed = instructions?.trim();
  return trimmed ? { instructions: trimmed, ...rest } : rest;
}

/** Ollama's `options` for these settings (the caller adds `num_ctx`, capped by the model). */
export function samplingOptions(settings: ChatSettings): { temperature?: number; top_p?: number; seed?: number } {
  return {
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(settings.topP === undefined ? {} : { top_p: settings.topP }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
  };
}
