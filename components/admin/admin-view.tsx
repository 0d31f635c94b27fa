"use client";

import { useCallback, useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import { useSession } from "@/components/auth/session-context";
import { PageFrame, Section } from "@/components/shell/page-frame";
import { InlineError } from "@/components/ui/field";
import { api } from "@/lib/client/api";
import type { PublicUser } from "@/lib/client/types";
import { AddUserForm } from "./add-user-form";
import { SignupSwitch } from "./signup-switch";
import { UserRow } from "./user-row";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** `/admin`: the accounts of this server and whether anyone may sign up. Admins only. */
export function AdminView() {
  const t = useTranslations("admin");
  const { me } = useSession();
  const [users, setUsers] = useState<PublicUser[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const isAdmin = me?.accountsRequired === true && me.user?.role === "admin";

  useEffect(() => {
    document.title = `${t("title")} · ollama-web`;
  }, [t]);

  const load = useCallback(async () => {
    try {
      setUsers((await api.users()).users);
      setError(null);
    } catch (failure) {
      setError(message(failure));
    }
  }, []);

  useEffect(() => {
    if (isAdmin) void load();
  }, [isAdmin, load]);

  const replace = useCallback((user: PublicUser) => {
    setUsers((previous) => previous?.map((u) => (u.id === user.id ? user : u)) ?? null);
  }, []);
  const removeLocal = useCallback((id: string) => {
    setUsers((previous) => previous?.filter((u) => u.id !== id) ?? null);
  }, []);

  if (!me?.accountsRequired) {
    return (
      <PageFrame title={t("title")}>
        <p data-testid="admin-unavailable" className="text-sm text-muted-foreground">
          {t("accountsOff")}
        </p>
      </PageFrame>
    );
  }
  if (!isAdmin) {
    return (
      <PageFrame title={t("title")}>
        <p data-testid="admin-forbidden" className="text-sm text-muted-foreground">
          {t("forbidden")}
        </p>
      </PageFrame>
    );
  }

  return (
    <PageFrame title={t("title")}>
      <Section title={t("signupSection")} description={t("signupDescription")}>
        <SignupSwitch />
      </Section>
      <Section title={t("usersSection")} testId="admin-users">
        {error ? <InlineError>{error}</InlineError> : null}
        {users === null && !error ? <p className="text-sm text-muted-foreground">{t("loading")}</p> : null}
        {users ? (
          <ul className="divide-y divide-border overflow-hidden rounded-xl border border-border">
            {users.map((user) => (
              <UserRow
                key={user.id}
                user={user}
                self={user.id === me.user?.id}
                onChanged={replace}
                onRemoved={removeLocal}
              />
            ))}
          </ul>
        ) : null}
      </Section>
      <Section title={t("addSection")}>
        <AddUserForm onAdded={(user) => setUsers((previous) => [...(previous ?? []), user])} />
      </Section>
    </PageFrame>
  );
}
