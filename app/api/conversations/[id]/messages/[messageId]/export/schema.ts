import { z } from "zod";

/** `?format=md` (default) or `docx`. */
export const answerExportQuery = z.object({
  format: z.enum(["md", "docx"]).default("md"),
});
export type AnswerExportQuery = z.infer<typeof answerExportQuery>;
