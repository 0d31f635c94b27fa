"use client";

import { KeyRound } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { useTranslations } from "use-intl";
import { useSession } from "@/components/auth/use-session";
import { Section } from "@/components/shell/page-frame";
import { InlineError, SubmitButton } from "@/components/ui/field";
import { TextField } from "@/components/ui/text-field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";

type Outcome = { kind: "changed" } | { kind: "error"; message: string } | null;

/** Settings → Account: the signed-in user changes their password (only with accounts). */
export function PasswordSettings() {
  const t = useTranslations("settings");
  const errorText = useErrorText();
  const { me } = useSession();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const rulesId = useId();
  if (!me?.accountsRequired || !me.user) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (next !== confirm) {
      setOutcome({ kind: "error", message: t("passwordMismatch") });
      return;
    }
    setBusy(true);
    setOutcome(null);
    try {
      await api.changePassword({ currentPassword: current, newPassword: next });
      setCurrent("");
      setNext("");
      setConfirm("");
      setOutcome({ kind: "changed" });
    } catch (failure) {
      setOutcome({ kind: "error", message: errorText(failure) });
    } finally {
      setBusy(false);
    }
  };

  const field = (label: string, value: string, onChange: (value: string) => void, testId: string) => (
    <TextField
      compact
      label={label}
      data-testid={testId}
      type="password"
      required
      autoComplete={testId === "password-current" ? "current-password" : "new-password"}
      aria-describedby={testId === "password-current" ? undefined : rulesId}
      value={value}
      onChange={onChange}
    />
  );

  return (
    <Section title={t("accountSection")} description={t("accountDescription", { username: me.user.username })}>
      <form
        onSubmit={(event) => void submit(event)}
        data-testid="password-form"
        className="space-y-3 rounded-xl border border-border p-4"
      >
        <div className="grid gap-3 sm:grid-cols-3">
          {field(t("currentPassword"), current, setCurrent, "password-current")}
          {field(t("newPassword"), next, setNext, "password-new")}
          {field(t("confirmPassword"), confirm, setConfirm, "password-confirm")}
        </div>
        <p id={rulesId} className="text-xs text-muted-foreground">
          {t("passwordRules")}
        </p>
        {outcome?.kind === "error" ? <InlineError data-testid="password-error">{outcome.message}</InlineError> : null}
        {outcome?.kind === "changed" ? (
          <p role="status" data-testid="password-changed" className="text-sm text-muted-foreground">
            {t("passwordChanged")}
          </p>
        ) : null}
        <SubmitButton data-testid="password-submit" busy={busy} icon={<KeyRound aria-hidden className="size-4" />}>
          {t("changePassword")}
        </SubmitButton>
      </form>
    </Section>
  );
}
