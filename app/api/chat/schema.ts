import { z } from "zod";

export const MAX_MESSAGE_CHARS = 100_000;

export const chatBody = z.object({
  conversationId: z.string().min(1).max(100),
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`)
    .refine((text) => text.trim().length > 0, "must not be empty"),
  model: z.string().trim().min(1).max(200).optional(),
  /**
   * auto: native tool calling when the model can, else JSON mode; native or json force one; dag plans
   * first and runs the plan's steps as parallel agents. Remembered per conversation ("Plan first").
   */
  mode: z.enum(["auto", "native", "json", "dag"]).optional(),
  /** Replace the conversation's last turn (its question and answer) by this message: regenerate, or edit and resend. */
  replaceLast: z.boolean().optional(),
  /** Files of this conversation sent with the message; images reach a vision model. */
  attachmentIds: z.array(z.string().min(1).max(100)).max(20).optional(),
});

export type ChatBody = z.infer<typeof chatBody>;
