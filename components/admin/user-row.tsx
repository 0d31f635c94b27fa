"use client";

import { useState } from "react";
import { useFormatter, useTranslations } from "use-intl";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { api } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";
import type { PublicUser } from "@/lib/client/types";

/** One account with its actions; removing asks first. The server refuses to lock out the last admin. */
export function UserRow({
  user,
  self,
  onChanged,
  onRemoved,
}: {
  user: PublicUser;
  self: boolean;
  onChanged: (user: PublicUser) => void;
  onRemoved: (id: string) => void;
}) {
  const t = useTranslations("admin");
  const format = useFormatter();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const change = (body: { disabled?: boolean; role?: "admin" | "user" }) =>
    run(async () => onChanged((await api.updateUser(user.id, body)).user));
  const remove = () =>
    run(async () => {
      await api.removeUser(user.id);
      onRemoved(user.id);
    });

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
      {confirming ? (
        <div
          role="alertdialog"
          aria-label={t("removeTitle", { username: user.username })}
          className="flex flex-wrap items-center gap-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 dark:bg-red-500/10 dark:text-red-100"
        >
          <p className="min-w-0 flex-1">{t("removeConfirm", { username: user.username })}</p>
          <button
            type="button"
            className={BUTTON_SECONDARY}
            onClick={() => setConfirming(false)}
            disabled={busy}
            // biome-ignore lint/a11y/noAutofocus: the confirmation takes the focus so Escape-less keyboard users land on a safe choice
            autoFocus
          >
            {t("cancel")}
          </button>
          <button
            type="button"
            data-testid="user-remove-confirm"
            className="inline-flex items-center rounded-lg bg-red-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-50"
            disabled={busy}
            onClick={() => void remove().then(() => setConfirming(false))}
          >
            {t("removeConfirmButton")}
          </button>
        </div>
      ) : null}
      {error ? <InlineError data-testid="user-error">{error}</InlineError> : null}
    </li>
  );
}
