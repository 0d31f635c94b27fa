import { z } from "zod";
import { chatSettingsSchema, type SettingsLimits } from "@/lib/chat-settings";

/** `POST /api/presets` and `PATCH /api/presets/:id`: a saved model + instructions + options. */
export const presetBody = (limits: SettingsLimits) =>
  z.strictObject({
    name: z.string().trim().min(1, "must not be empty").max(100),
    model: z.string().trim().min(1).max(200).nullable().default(null),
    settings: chatSettingsSchema(limits).default({}),
    /** The personal default: new chats start with it (at most one per user). */
    isDefault: z.boolean().default(false),
  });

export const presetPatch = (limits: SettingsLimits) =>
  z
    .strictObject({
      name: z.string().trim().min(1, "must not be empty").max(100).optional(),
      model: z.string().trim().min(1).max(200).nullable().optional(),
      settings: chatSettingsSchema(limits).optional(),
      isDefault: z.boolean().optional(),
    })
    .refine((body) => Object.values(body).some((value) => value !== undefined), "give something to change");
