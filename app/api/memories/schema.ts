import { z } from "zod";
import { MAX_MEMORY_CHARS } from "@/lib/tools/builtin/remember";

/** A memory's text: one lasting fact or preference, spaces collapsed. */
const memoryText = z
  .string()
  .transform((text) => text.replace(/\s+/g, " ").trim())
  .pipe(z.string().min(1, "must not be empty").max(MAX_MEMORY_CHARS));

/**
 * `POST /api/memories`: a memory the user writes, or one `remember` proposed and the user saves
 * from its answer (`messageId`: the memory keeps that answer and its conversation).
 */
export const createMemoryBody = z.strictObject({
  text: memoryText,
  messageId: z.string().min(1).max(100).optional(),
});

/** `PATCH /api/memories/:id`: its new text. */
export const updateMemoryBody = z.strictObject({ text: memoryText });

/** `PATCH /api/memories/settings`: memory on or off, and whether `remember` asks first. */
export const memorySettingsBody = z
  .strictObject({ enabled: z.boolean().optional(), askBeforeSaving: z.boolean().optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "give enabled or askBeforeSaving");

export type CreateMemoryBody = z.infer<typeof createMemoryBody>;
export type UpdateMemoryBody = z.infer<typeof updateMemoryBody>;
export type MemorySettingsBody = z.infer<typeof memorySettingsBody>;
