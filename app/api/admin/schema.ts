import { z } from "zod";
import { password, username } from "@/lib/auth/account-rules";
import { parseWith } from "@/lib/http/responses";

export const createUserBody = z.object({ username, password, role: z.enum(["admin", "user"]).optional() });

export const updateUserBody = z
  .object({
    disabled: z.boolean().optional(),
    role: z.enum(["admin", "user"]).optional(),
    password: password.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, "give disabled, role or password");

export const adminSettingsBody = z.object({ signupOpen: z.boolean() });

/** An Ollama model name as `ollama pull` takes it: `[host/][namespace/]model[:tag]`. */
export const modelName = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^\w[\w.\-:/@]*$/, "not a model name (letters, digits and . _ - : / @)");

/**
 * A model, and the Ollama server to act on (its URL as configured, see `GET /api/admin/models/servers`);
 * without one, pull, delete and unload act on every server.
 */
export const modelBody = z.object({ model: modelName, server: z.string().trim().min(1).max(2000).optional() });

/** `?model=` (and `&server=`) of the model routes that read or delete one. */
export const modelQuery = (request: Request) => {
  const params = new URL(request.url).searchParams;
  return parseWith(modelBody, { model: params.get("model") ?? "", server: params.get("server") ?? undefined });
};
