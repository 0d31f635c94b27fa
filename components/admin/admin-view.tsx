"use client";

import { useEffect } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { useSession } from "@/components/auth/use-session";
import { PageFrame, Section } from "@/components/shell/page-frame";
import { InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { AddUserForm } from "./add-user-form";
import { SignupSwitch } from "./signup-switch";
import { UserRow } from "./user-row";

/** `/admin`: the accounts of this server and whether anyone may sign up. Admins only. */
export function AdminView() {
  const t = useTranslations("admin");
  const message = useErrorText();
  const { me } = useSession();
  const isAdmin = me?.accountsRequired === true && me.user?.role === "admin";
  // Read for admins only; rows and the add form write their changes into this cached list.
  const { data: users, error: failure } = useSWR(
    isAdmin ? cacheKeys.users : null,
    async () => (await api.users()).users,
  );
  const error = failure === undefined ? null : message(failure);

  useEffect(() => {
    document.title = `${t("title")} · ollama-web`;
  }, [t]);

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
        {users === undefined && !error ? <p className="text-sm text-muted-foreground">{t("loading")}</p> : null}
        {users ? (
          <ul className="divide-y divide-border overflow-hidden rounded-xl border border-border">
            {users.map((user) => (
              <UserRow key={user.id} user={user} self={user.id === me.user?.id} />
            ))}
          </ul>
        ) : null}
      </Section>
      <Section title={t("addSection")}>
        <AddUserForm />
      </Section>
    </PageFrame>
  );
}
