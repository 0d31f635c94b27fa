import { z } from "zod";

export const username = z
  .string()
  .trim()
  .min(3, "must be at least 3 characters")
  .max(32, "must be at most 32 characters")
  .regex(/^[A-Za-z0-9._-]+$/, "may use letters, digits, dot, dash and underscore only");

export const password = z.string().min(8, "must be at least 8 characters").max(200, "must be at most 200 characters");

export const credentials = z.object({ username, password });
export const loginBody = z.object({ username: z.string().max(64), password: z.string().max(200) });
