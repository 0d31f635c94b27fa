import { z } from "zod";

export const listConversationsQuery = z.object({
  q: z.string().max(200).optional(),
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

const title = z.string().trim().min(1, "must not be empty").max(200);
const model = z.string().trim().min(1).max(200);

export const createConversationBody = z.object({
  title: title.optional(),
  model: model.optional(),
});

export const updateConversationBody = z
  .object({ title: title.optional(), model: model.nullable().optional() })
  .refine((body) => body.title !== undefined || body.model !== undefined, "give a title or a model");

export type CreateConversationBody = z.infer<typeof createConversationBody>;
export type UpdateConversationBody = z.infer<typeof updateConversationBody>;

/** `POST /api/conversations/:id/branch`: show the branch through this message. */
export const selectBranchBody = z.object({ messageId: z.string().min(1).max(100) });
