import { z } from "zod";

export const fileUsageQuery = z.object({
  /** A conversation of the viewer's: its file count against MAX_FILES_PER_CONVERSATION too. */
  conversation: z.string().min(1).max(64).optional(),
  /** A project of the viewer's: its file count against MAX_FILES_PER_PROJECT too. */
  project: z.string().min(1).max(64).optional(),
});
