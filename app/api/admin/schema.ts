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

export const modelBody = z.object({ model: modelName });

/** `?model=` of the model routes that read or delete one. */
export const modelQuery = (request: Request) =>
  parseWith(modelBody, { model: new URL(request.url).searchParams.get("model") ?? "" });
