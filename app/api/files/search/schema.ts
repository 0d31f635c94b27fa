import { z } from "zod";

/** `GET /api/files/search`: words inside the viewer's files (docs/api.md, "Files"). */
export const fileSearchQuery = z.object({
  q: z.string().trim().min(1, "must not be empty").max(200),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
