import { z } from "zod";
import { MAX_ATTACHMENTS_PER_MESSAGE, MAX_MESSAGE_CHARS } from "@/lib/chat/message-limits";
import { researchStartSchema } from "@/lib/protocol/research";

const messageId = z.string().min(1).max(100);

/**
 * A new question — after an answer (`parentId`, by default the end of the branch shown), or as a
 * new version of a question (`editOf`) — or a new answer to a stored question (`regenerate`: the
 * answer to write again; the question and its files are the stored ones). With `mode: "research"`,
 * `research: {brief}` and no message starts the research of an edited brief (docs/research.md,
 * "Research mode"): its question is the brief; `resume` (an answer) resumes the research a restart
 * interrupted, as a new version of that answer. See docs/api.md.
 */
export const chatBody = z
  .strictObject({
    conversationId: z.string().min(1).max(100),
    message: z
      .string()
      .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`)
      .refine((text) => text.trim().length > 0, "must not be empty")
      .optional(),
    model: z.string().trim().min(1).max(200).optional(),
    /**
     * auto: native tool calling when the model can, else JSON mode; native or json force one; dag plans
     * first and runs the plan's steps as parallel agents. Remembered per conversation ("Plan first").
     * research: a research run — a brief proposed, or with `research`, the brief researched.
     */
    mode: z.enum(["auto", "native", "json", "dag", "research"]).optional(),
    /** Research mode: research this brief (the one the run under `parentId` proposed, as edited). */
    research: researchStartSchema.optional(),
    /** Files of this conversation sent with the message; images reach a vision model. */
    attachmentIds: z.array(z.string().min(1).max(100)).max(MAX_ATTACHMENTS_PER_MESSAGE).optional(),
    /** Unsent follow-ups of this conversation the message sends: they are no longer held once it starts. */
    interruptIds: z.array(z.string().min(1).max(100)).max(100).optional(),
    parentId: messageId.optional(),
    editOf: messageId.optional(),
    regenerate: messageId.optional(),
    /** Research mode: resume the research a restart interrupted, whose report is this answer (docs/research.md). */
    resume: messageId.optional(),
  })
  .superRefine((body, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: "custom", path: [path], message });
    if (body.resume !== undefined) {
      if (body.mode !== "research") issue("resume", 'only with mode "research"');
      for (const key of [
        "message",
        "research",
        "attachmentIds",
        "interruptIds",
        "parentId",
        "editOf",
        "regenerate",
      ] as const) {
        if (body[key] !== undefined) issue(key, "not with resume: the interrupted run's brief is researched");
      }
    } else if (body.research !== undefined) {
      if (body.mode !== "research") issue("research", 'only with mode "research"');
      for (const key of ["message", "attachmentIds", "interruptIds", "editOf", "regenerate"] as const) {
        if (body[key] !== undefined) issue(key, "not with research: the brief is the question");
      }
    } else if (body.regenerate !== undefined) {
      for (const key of ["message", "attachmentIds", "interruptIds", "parentId", "editOf"] as const) {
        if (body[key] !== undefined) issue(key, "not with regenerate: the stored question is answered again");
      }
    } else if (body.message === undefined) issue("message", "required (or regenerate an answer)");
    if (body.parentId !== undefined && body.editOf !== undefined) issue("editOf", "give parentId or editOf, not both");
  })
  .transform(({ message, parentId, editOf, regenerate, research, resume, ...common }) => {
    if (resume !== undefined) return { ...common, resume };
    if (research !== undefined) return { ...common, research: research.brief, parentId };
    if (regenerate !== undefined) return { ...common, regenerate };
    const text = message ?? "";
    return editOf !== undefined ? { ...common, message: text, editOf } : { ...common, message: text, parentId };
  });

export type ChatBody = z.infer<typeof chatBody>;
