import { z } from "zod";

/** `POST /api/projects` and `PATCH /api/projects/:id` (docs/architecture.md, "Projects and memory"). */
const name = z.string().trim().min(1, "must not be empty").max(100);
const instructions = (maxChars: number) => z.string().max(maxChars, `must be at most ${maxChars} characters`);
const model = z.string().trim().min(1).max(200).nullable();
const presetId = z.string().min(1).max(100).nullable();

export const projectBody = (maxInstructionsChars: number) =>
  z.strictObject({
    name,
    instructions: instructions(maxInstructionsChars).default(""),
    model: model.default(null),
    presetId: presetId.default(null),
  });

export const projectPatch = (maxInstructionsChars: number) =>
  z
    .strictObject({
      name: name.optional(),
      instructions: instructions(maxInstructionsChars).optional(),
      model: model.optional(),
      presetId: presetId.optional(),
      /** Folded in the sidebar. */
      collapsed: z.boolean().optional(),
    })
    .refine((body) => Object.values(body).some((value) => value !== undefined), "give something to change");

/** `DELETE /api/projects/:id?conversations=1`: its conversations go too; without it they stay, outside any project. */
export const deleteProjectQuery = z.object({
  conversations: z
    .enum(["0", "1"])
    .default("0")
    .transform((value) => value === "1"),
});
