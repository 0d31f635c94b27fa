"use client";

import { useState } from "react";
import useSWRMutation from "swr/mutation";
import { useFormatter, useTranslations } from "use-intl";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { cx } from "@/lib/client/cx";
import type { PublicUser } from "@/lib/client/types";

type UserAction = { change: { disabled?: boolean; role?: "admin" | "user" } } | { remove: true };

/**
 * Changes or removes one account; the server's answer goes into the cached list (a changed account
 * replaces its entry, a removed one leaves it), so the list is not read again.
 */
function useUserAction(user: PublicUser) {
  return useSWRMutation(
    cacheKeys.users,
    async (_key: string, { arg }: { arg: UserAction }) => {
      if ("change" in arg) return (await api.updateUser(user.id, arg.change)).user;
      await api.removeUser(user.id);
      return null;
    },
    {
      populateCache: (changed: PublicUser | null, users: PublicUser[] = []) =>
        changed ? users.map((u) => (u.id === changed.id ? changed : u)) : users.filter((u) => u.id !== user.id),
      revalidate: false,
      throwOnError: false,
    },
  );
}

/** One account with its actions; removing asks first. The server refuses to lock out the last admin. */
export function UserRow({ user, self }: { user: PublicUser; self: boolean }) {
  const t = useTranslations("admin");
  const message = useErrorText();
  const format = useFormatter();
  const [confirming, setConfirming] = useState(false);
  const { trigger, isMutating: busy, error: failure } = useUserAction(user);
  const error = busy || failure === undefined ? null : message(failure);

  const change = (body: { disabled?: boolean; role?: "admin" | "user" }) => trigger({ change: body });
  const remove = () => trigger({ remove: true });

  return (
    <li data-testid="user-row" data-username={user.username} className="space-y-2 px-4 py-3">
      <div className="flex flex-col gap-x-3 gap-y-2 sm:flex-row sm:items-center">
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium">
            {user.username}
            {self ? <span className="ml-1.5 text-xs font-normal text-muted-foreground">{t("you")}</span> : null}
          </p>
          <p className="text-xs text-muted-foreground">
            <span data-testid="user-role">{user.role === "admin" ? t("roleAdmin") : t("roleUser")}</span>
            {" · "}
            <span data-testid="user-state" className={cx(user.disabled && "text-red-700 dark:text-red-300")}>
              {user.disabled ? t("disabled") : t("active")}
            </span>
            {" · "}
            {t("created", { date: format.dateTime(user.createdAt, { dateStyle: "medium" }) })}
          </p>
        </div>
        {confirming ? null : (
          <div className="flex flex-wrap gap-1.5">
            <button
              type="button"
              data-testid="user-toggle-disabled"
              className={BUTTON_SECONDARY}
              disabled={busy}
              onClick={() => void change({ disabled: !user.disabled })}
            >
              {user.disabled ? t("enable") : t("disable")}
            </button>
            <button
              type="button"
              data-testid="user-toggle-role"
              className={BUTTON_SECONDARY}
              disabled={busy}
              onClick={() => void change({ role: user.role === "admin" ? "user" : "admin" })}
            >
              {user.role === "admin" ? t("makeUser") : t("makeAdmin")}
            </button>
            <button
              type="button"
              data-testid="user-remove"
              className={cx(BUTTON_SECONDARY, "text-red-700 dark:text-red-300")}
              disabled={busy}
              onClick={() => setConfirming(true)}
            >
              {t("remove")}
            </button>
          </div>
        )}
      </div>
      <ConfirmDialog
        inline
        open={confirming}
        title={t("removeTitle", { username: user.username })}
        text={t("removeConfirm", { username: user.username })}
        cancelLabel={t("cancel")}
        confirmLabel={t("removeConfirmButton")}
        confirmTestId="user-remove-confirm"
        onClose={() => setConfirming(false)}
        // A refusal (the last admin) shows under the row, as the other actions' do.
        onConfirm={() => remove().then(() => null)}
      />
      {error ? <InlineError data-testid="user-error">{error}</InlineError> : null}
    </li>
  );
}
