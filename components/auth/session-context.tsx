"use client";

import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { api } from "@/lib/client/api";
import type { Me } from "@/lib/client/types";

export interface Session {
  status: "loading" | "ready" | "error";
  me: Me | null;
  error: string | null;
  reload(): Promise<void>;
  /** Ends the session on the server, then starts over on the sign-in page (all state dropped). */
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** Who is signed in (`GET /api/auth/me`), read once per page load. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<Session["status"]>("loading");
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setMe(await api.me());
      setStatus("ready");
      setError(null);
    } catch (failure) {
      setStatus("error");
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  const signOut = useCallback(async () => {
    await api.logout().catch((failure: unknown) => console.error("[auth] sign-out failed", failure));
    window.location.assign("/login");
  }, []);

  const value = useMemo(() => ({ status, me, error, reload, signOut }), [status, me, error, reload, signOut]);
  return <SessionContext value={value}>{children}</SessionContext>;
}

export function useSession(): Session {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession must be used inside <SessionProvider>");
  return value;
}
