import { z } from "zod";
import { MAX_MEMORY_CHARS } from "@/lib/tools/builtin/remember";

/** A memory's text: one lasting fact or preference, spaces collapsed. */
const memoryText = z
  .string()
  .transform((text) => text.replace(/\s+/g, " ").trim())
  .pipe(z.string().min(1, "must not be empty").max(MAX_MEMORY_CHARS));

const id = z.string().min(1).max(100);

/**
 * `POST /api/memories`: a memory the user writes, or one `remember` proposed and the user saves
 * from its answer: `messageId` once the answer is stored, `runId` (its run) from the moment the
 * proposal streams; either way the memory keeps the run, the conversation and, once stored, the answer.
 */
export const createMemoryBody = z
  .strictObject({ text: memoryText, messageId: id.optional(), runId: id.optional() })
  .refine((body) => body.messageId === undefined || body.runId === undefined, "give messageId or runId, not both");

/** `POST /api/memories/dismissals`: the user dismisses a proposal of `remember`: its run and its text. */
export const dismissProposalBody = z.strictObject({ runId: id, text: memoryText });

/** `GET /api/memories/dismissals?runId=`: the run's proposals the user dismissed. */
export const dismissalsQuery = z.object({ runId: id });

/** `PATCH /api/memories/:id`: its new text. */
export const updateMemoryBody = z.strictObject({ text: memoryText });

/** `PATCH /api/memories/settings`: memory on or off, and whether `remember` asks first. */
export const memorySettingsBody = z
  .strictObject({ enabled: z.boolean().optional(), askBeforeSaving: z.boolean().optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "give enabled or askBeforeSaving");

export type CreateMemoryBody = z.infer<typeof createMemoryBody>;
export type DismissProposalBody = z.infer<typeof dismissProposalBody>;
export type UpdateMemoryBody = z.infer<typeof updateMemoryBody>;
export type MemorySettingsBody = z.infer<typeof memorySettingsBody>;
