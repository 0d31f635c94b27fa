"use client";

import { Loader2, UserPlus } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import useSWRMutation from "swr/mutation";
import { useTranslations } from "use-intl";
import { BUTTON_PRIMARY, INPUT, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { PublicUser } from "@/lib/client/types";

type NewUser = { username: string; password: string; role: "admin" | "user" };

/** The admin adds an account (sign-up open or not); it joins the cached list at the end. */
export function AddUserForm() {
  const t = useTranslations("admin");
  const message = useErrorText();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<"user" | "admin">("user");
  const [added, setAdded] = useState<string | null>(null);
  const ids = { user: useId(), password: useId(), role: useId() };
  const adding = useSWRMutation(
    cacheKeys.users,
    async (_key: string, { arg }: { arg: NewUser }) => (await api.addUser(arg)).user,
    {
      populateCache: (user: PublicUser, users: PublicUser[] = []) => [...users, user],
      revalidate: false,
      throwOnError: false,
    },
  );
  const busy = adding.isMutating;
  const failure = busy ? undefined : adding.error;
  const error = failure === undefined ? null : message(failure);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    const user = await adding.trigger({ username, password, role });
    if (!user) return;
    setAdded(user.username);
    setUsername("");
    setPassword("");
    setRole("user");
  };

  return (
    <form
      onSubmit={(event) => void submit(event)}
      data-testid="add-user-form"
      className="space-y-3 rounded-xl border border-border p-4"
    >
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto]">
        <div className="space-y-1">
          <label htmlFor={ids.user} className="text-xs font-medium text-muted-foreground">
            {t("username")}
          </label>
          <input
            id={ids.user}
            data-testid="add-user-username"
            className={INPUT}
            required
            autoComplete="off"
            value={username}
            onChange={(event) => setUsername(event.target.value)}
          />
        </div>
        <div className="space-y-1">
          <label htmlFor={ids.password} className="text-xs font-medium text-muted-foreground">
            {t("password")}
          </label>
          <input
            id={ids.password}
            data-testid="add-user-password"
            type="password"
            className={INPUT}
            required
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        <div className="space-y-1">
          <label htmlFor={ids.role} className="text-xs font-medium text-muted-foreground">
            {t("role")}
          </label>
          <select
            id={ids.role}
            data-testid="add-user-role"
            className={INPUT}
            value={role}
            onChange={(event) => setRole(event.target.value === "admin" ? "admin" : "user")}
          >
            <option value="user">{t("roleUser")}</option>
            <option value="admin">{t("roleAdmin")}</option>
          </select>
        </div>
      </div>
      {error ? <InlineError data-testid="add-user-error">{error}</InlineError> : null}
      {added ? (
        <p role="status" className="text-sm text-muted-foreground">
          {t("added", { username: added })}
        </p>
      ) : null}
      <button type="submit" data-testid="add-user-submit" className={BUTTON_PRIMARY} disabled={busy}>
        {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : <UserPlus aria-hidden className="size-4" />}
        {t("add")}
      </button>
    </form>
  );
}
