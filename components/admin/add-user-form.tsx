"use client";

import { UserPlus } from "lucide-react";
import { type FormEvent, useState } from "react";
import useSWRMutation from "swr/mutation";
import { useTranslations } from "use-intl";
import { InlineError, SubmitButton } from "@/components/ui/field";
import { SelectField, TextField } from "@/components/ui/text-field";
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
        <TextField
          compact
          label={t("username")}
          data-testid="add-user-username"
          verbatim
          required
          value={username}
          onChange={setUsername}
        />
        <TextField
          compact
          label={t("password")}
          data-testid="add-user-password"
          type="password"
          required
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
        />
        <SelectField
          compact
          label={t("role")}
          data-testid="add-user-role"
          value={role}
          onChange={(value) => setRole(value === "admin" ? "admin" : "user")}
        >
          <option value="user">{t("roleUser")}</option>
          <option value="admin">{t("roleAdmin")}</option>
        </SelectField>
      </div>
      {error ? <InlineError data-testid="add-user-error">{error}</InlineError> : null}
      {added ? (
        <p role="status" className="text-sm text-muted-foreground">
          {t("added", { username: added })}
        </p>
      ) : null}
      <SubmitButton data-testid="add-user-submit" busy={busy} icon={<UserPlus aria-hidden className="size-4" />}>
        {t("add")}
      </SubmitButton>
    </form>
  );
}
