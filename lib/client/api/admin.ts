/** An admin's accounts: the users, and whether anyone may sign up. */
import type { z } from "zod";
import type { adminSettingsBody, createUserBody, updateUserBody } from "@/app/api/admin/schema";
import type { PublicUser } from "../types";
import { jsonBody, request } from "./request";

export type AddUserRequest = z.input<typeof createUserBody>;
export type UpdateUserRequest = z.input<typeof updateUserBody>;
/** `GET /api/admin/settings` answers it; `PATCH` takes it and answers it. */
export type SignupSetting = z.input<typeof adminSettingsBody>;

const userPath = (id: string) => `/api/admin/users/${encodeURIComponent(id)}`;

export const adminApi = {
  users: () => request<{ users: PublicUser[] }>("/api/admin/users", { cache: "no-store" }),

  addUser: (body: AddUserRequest) => request<{ user: PublicUser }>("/api/admin/users", jsonBody("POST", body)),

  updateUser: (id: string, body: UpdateUserRequest) =>
    request<{ user: PublicUser }>(userPath(id), jsonBody("PATCH", body)),

  removeUser: (id: string) => request<void>(userPath(id), { method: "DELETE" }),

  adminSettings: () => request<SignupSetting>("/api/admin/settings", { cache: "no-store" }),

  setSignupOpen: (signupOpen: SignupSetting["signupOpen"]) =>
    request<SignupSetting>("/api/admin/settings", jsonBody("PATCH", { signupOpen } satisfies SignupSetting)),
};
