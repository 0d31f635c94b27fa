import { z } from "zod";
import { AppError } from "@/lib/errors";

/**
 * What a user name and a password must be: one definition for the sign-up and admin routes (which
 * parse request bodies with these schemas) and `npm run create-user` (through `checkNewAccount`).
 */

export const username = z
  .string()
  .trim()
  .min(3, "must be at least 3 characters")
  .max(32, "must be at most 32 characters")
  .regex(/^[A-Za-z0-9._-]+$/, "may use letters, digits, dot, dash and underscore only");

export const password = z.string().min(8, "must be at least 8 characters").max(200, "must be at most 200 characters");

export const credentials = z.object({ username, password });

/** `POST /api/auth/signup`: the account, and the setup token the first account needs (docs/security.md). */
export const signupBody = credentials.extend({ setupToken: z.string().trim().max(200).optional() });

/** Sign-in takes any name and password within bounds: a rule broken is just a wrong login. */
export const loginBody = z.object({ username: z.string().max(64), password: z.string().max(200) });

/** `POST /api/auth/password`: the current password (any within bounds) and a new one by the rules. */
export const passwordChangeBody = z.object({ currentPassword: z.string().max(200), newPassword: password });

/** Refuses a new account's name or password that breaks the rules, naming which and why. */
export function checkNewAccount(account: { username: string; password: string }): void {
  const result = credentials.safeParse(account);
  if (result.success) return;
  const issue = result.error.issues[0];
  throw new AppError(
    "bad_request:validation",
    `The ${String(issue?.path[0] ?? "account")} ${issue?.message ?? "is invalid"}.`,
    { details: { issues: result.error.issues } },
  );
}
