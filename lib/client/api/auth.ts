/** Signing in and out, the first account, and the signed-in user's own password. */
import type { z } from "zod";
import type { loginBody, passwordChangeBody, signupBody } from "@/lib/auth/account-rules";
import type { Me, PublicUser } from "../types";
import { jsonBody, request } from "./request";

export type LoginRequest = z.input<typeof loginBody>;
/** `setupToken`: the one-time token the first account needs (printed in the server log). */
export type SignupRequest = z.input<typeof signupBody>;
export type PasswordChangeRequest = z.input<typeof passwordChangeBody>;

export const authApi = {
  me: () => request<Me>("/api/auth/me", { cache: "no-store" }),

  login: (body: LoginRequest) => request<{ user: PublicUser }>("/api/auth/login", jsonBody("POST", body)),

  signup: (body: SignupRequest) => request<{ user: PublicUser }>("/api/auth/signup", jsonBody("POST", body)),

  logout: () => request<void>("/api/auth/logout", { method: "POST" }),

  /** The signed-in user's own password; this browser keeps a fresh session, every other one ends. */
  changePassword: (body: PasswordChangeRequest) =>
    request<{ user: PublicUser }>("/api/auth/password", jsonBody("POST", body)),
};
