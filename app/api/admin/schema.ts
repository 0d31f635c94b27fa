import { z } from "zod";
import { password, username } from "@/lib/auth/account-rules";

export const createUserBody = z.object({ username, password, role: z.enum(["admin", "user"]).optional() });

export const updateUserBody = z
  .object({
    disabled: z.boolean().optional(),
    role: z.enum(["admin", "user"]).optional(),
    password: password.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, "give disabled, role or password");

export const adminSettingsBody = z.object({ signupOpen: z.boolean() });
