import { z } from "zod";
import { MAX_MESSAGE_CHARS } from "@/lib/chat/message-limits";
import { chatSettingsSchema, type SettingsLimits } from "@/lib/chat-settings";
import type { Config } from "@/lib/env-config";
import { TOOL_GROUP_ID } from "@/lib/mcp/tool-groups";
import { approvalDecisions } from "@/lib/protocol/run-events";

export const listConversationsQuery = z.object({
  q: z.string().max(200).optional(),
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  /** `1`: the archived conversations (and only they); otherwise the others. */
  archived: z
    .enum(["0", "1"])
    .optional()
    .transform((value) => value === "1"),
  /** One of the viewer's projects: only its conversations (the sidebar's project group). */
  project: z.string().min(1).max(100).optional(),
});

const title = z.string().trim().min(1, "must not be empty").max(200);
const model = z.string().trim().min(1).max(200);
/** Tool groups switched off: `web` and `mcp:<server>` (a server removed since is harmless). */
const disabledToolGroups = z
  .array(z.string().regex(TOOL_GROUP_ID, "must be web or mcp:<server>"))
  .max(100)
  .transform((groups) => [...new Set(groups)]);

/** A chat's own settings, within the server's limits. */
export const settingsLimits = (config: Config): SettingsLimits => ({
  maxInstructionsChars: config.MAX_INSTRUCTIONS_CHARS,
  maxNumCtx: config.NUM_CTX,
});

export const createConversationBody = z.object({
  title: title.optional(),
  model: model.optional(),
  /** The preset to start with; absent: the personal default preset, if any; null: none. */
  presetId: z.string().min(1).max(100).nullable().optional(),
  disabledToolGroups: disabledToolGroups.optional(),
  /** The project the chat starts in: its instructions apply, its model and preset are the defaults. */
  projectId: z.string().min(1).max(100).optional(),
  /** A private chat reads and writes no memory (docs/architecture.md, "Projects and memory"). */
  private: z.boolean().optional(),
});

/** `settings` replaces the conversation's settings whole (`{}` resets them to the defaults). */
export const updateConversationBody = (limits: SettingsLimits) =>
  z
    .object({
      title: title.optional(),
      model: model.nullable().optional(),
      settings: chatSettingsSchema(limits).optional(),
      disabledToolGroups: disabledToolGroups.optional(),
      pinned: z.boolean().optional(),
      archived: z.boolean().optional(),
      /** Moves the conversation into one of the owner's projects, or out of its project with null. */
      projectId: z.string().min(1).max(100).nullable().optional(),
      /** Private: from its next turn on, the chat reads and writes no memory. */
      private: z.boolean().optional(),
    })
    .refine(
      (body) => Object.values(body).some((value) => value !== undefined),
      "give a title, a model, settings, disabledToolGroups, pinned, archived, projectId or private",
    );

export type CreateConversationBody = z.infer<typeof createConversationBody>;
export type UpdateConversationBody = z.infer<ReturnType<typeof updateConversationBody>>;

/** `POST /api/conversations/:id/branch`: show the branch through this message. */
export const selectBranchBody = z.object({ messageId: z.string().min(1).max(100) });

/** `POST /api/conversations/:id/interrupt`: a follow-up for the running agent. */
export const interruptBody = z.object({
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS)
    .refine((text) => text.trim().length > 0, "must not be empty"),
});

/** `POST /api/conversations/:id/approvals/:approvalId`: the user's decision on a tool call that waits. */
export const approvalBody = z.strictObject({ decision: z.enum(approvalDecisions) });

/** `GET /api/conversations/:id/export` and `GET /api/conversations/export`: files included with `files=1`. */
export const exportQuery = z.object({
  format: z.enum(["json", "md"]).default("json"),
  files: z.enum(["0", "1"]).default("0"),
});
