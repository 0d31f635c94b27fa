"use client";

import useSWR from "swr";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { Me } from "@/lib/client/types";

export interface Session {
  status: "loading" | "ready" | "error";
  me: Me | null;
  error: string | null;
  reload(): Promise<void>;
  /** Ends the session on the server, then starts over on the sign-in page (all state dropped). */
  signOut(): Promise<void>;
}

async function signOut(): Promise<void> {
  await api.logout().catch((failure: unknown) => console.error("[auth] sign-out failed", failure));
  window.location.assign("/login");
}

/** Who is signed in (`GET /api/auth/me`), read once per page load and again on `reload`. */
export function useSession(): Session {
  const message = useErrorText();
  const { data, error, mutate } = useSWR(cacheKeys.me, () => api.me(), { revalidateIfStale: false });
  return {
    status: data ? "ready" : error !== undefined ? "error" : "loading",
    me: data ?? null,
    error: error === undefined ? null : message(error),
    reload: async () => {
      await mutate();
    },
    signOut,
  };
}
