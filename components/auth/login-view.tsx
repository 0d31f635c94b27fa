"use client";

import { Loader2 } from "lucide-react";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import { BUTTON_PRIMARY, InlineError, SubmitButton } from "@/components/ui/field";
import { TextField } from "@/components/ui/text-field";
import { useErrorText } from "@/components/ui/use-error-text";
import { loginDestination } from "@/lib/auth/login-destination";
import { api } from "@/lib/client/api";
import { useSession } from "./use-session";

type Mode = "signin" | "signup";

function nextPath(): string {
  return loginDestination(new URLSearchParams(window.location.search).get("next"), window.location.origin);
}

/**
 * `/login`: sign in; or, on a server without accounts yet, create the admin account; or sign up
 * when the admin left sign-up open. Afterwards the user goes back to where they were.
 */
export function LoginView() {
  const t = useTranslations("auth");
  const message = useErrorText();
  const { status, me, error: sessionError, reload } = useSession();
  const [mode, setMode] = useState<Mode>("signin");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [setupToken, setSetupToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const firstUser = me?.firstUser ?? false;
  const effectiveMode: Mode = firstUser ? "signup" : mode;
  const needsToken = me?.setupTokenRequired ?? false;

  // Nothing to sign in to (loopback, single user) or already signed in: go on.
  useEffect(() => {
    if (me && (!me.accountsRequired || me.user)) window.location.replace(nextPath());
  }, [me]);

  useEffect(() => {
    document.title = `${t(firstUser ? "createAdminTitle" : effectiveMode === "signup" ? "signUpTitle" : "signInTitle")} · ollama-web`;
  }, [t, firstUser, effectiveMode]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (effectiveMode === "signup") {
        await api.signup({ username, password, ...(needsToken ? { setupToken: setupToken.trim() } : {}) });
      } else await api.login({ username, password });
      window.location.assign(nextPath());
    } catch (failure) {
      setError(message(failure));
      setBusy(false);
    }
  };

  if (status === "error") {
    return (
      <Card title={t("signInTitle")}>
        <InlineError>{sessionError}</InlineError>
        <button type="button" className={`${BUTTON_PRIMARY} mt-4 w-full`} onClick={() => void reload()}>
          {t("retry")}
        </button>
      </Card>
    );
  }
  if (!me?.accountsRequired || me.user) {
    return (
      <div role="status" aria-label={t("loading")} className="grid flex-1 place-items-center">
        <Loader2 aria-hidden className="size-5 animate-spin text-muted-foreground" />
      </div>
    );
  }

  const title = firstUser ? t("createAdminTitle") : effectiveMode === "signup" ? t("signUpTitle") : t("signInTitle");
  return (
    <Card title={title} intro={firstUser ? t("createAdminIntro") : undefined}>
      <form onSubmit={(event) => void submit(event)} className="space-y-4" data-testid="login-form">
        <TextField
          label={t("username")}
          data-testid="login-username"
          verbatim
          autoComplete="username"
          required
          value={username}
          onChange={setUsername}
        />
        <TextField
          label={t("password")}
          hint={effectiveMode === "signup" ? t("passwordHint") : undefined}
          data-testid="login-password"
          type="password"
          autoComplete={effectiveMode === "signup" ? "new-password" : "current-password"}
          required
          value={password}
          onChange={setPassword}
        />
        {needsToken ? (
          <TextField
            mono
            verbatim
            label={t("setupToken")}
            hint={t("setupTokenHint")}
            data-testid="login-setup-token"
            required
            value={setupToken}
            onChange={setSetupToken}
          />
        ) : null}
        {error ? <InlineError data-testid="login-error">{error}</InlineError> : null}
        <SubmitButton data-testid="login-submit" className="w-full" busy={busy}>
          {firstUser ? t("createAdmin") : effectiveMode === "signup" ? t("signUp") : t("signIn")}
        </SubmitButton>
      </form>
      {!firstUser && me.signupOpen ? (
        <p className="mt-5 text-center text-sm text-muted-foreground">
          {effectiveMode === "signin" ? t("noAccount") : t("haveAccount")}{" "}
          <button
            type="button"
            data-testid={effectiveMode === "signin" ? "signup-link" : "signin-link"}
            className="font-medium text-foreground underline underline-offset-2"
            onClick={() => {
              setMode(effectiveMode === "signin" ? "signup" : "signin");
              setError(null);
            }}
          >
            {effectiveMode === "signin" ? t("signUp") : t("signIn")}
          </button>
        </p>
      ) : null}
    </Card>
  );
}

function Card({ title, intro, children }: { title: string; intro?: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-1 items-center justify-center overflow-y-auto px-4 py-10">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex flex-col items-center gap-3 text-center">
          <span aria-hidden className="grid size-10 place-items-center rounded-xl bg-foreground text-background">
            <svg viewBox="0 0 24 24" className="size-6" fill="currentColor" aria-hidden>
              <path d="M12 3c-3.9 0-7 2.7-7 6.3 0 1.9.9 3.6 2.4 4.8L6.8 20l4.2-2.6c.3 0 .7.1 1 .1 3.9 0 7-2.8 7-6.3S15.9 3 12 3Zm-3 7.5a1.1 1.1 0 1 1 0-2.2 1.1 1.1 0 0 1 0 2.2Zm6 0a1.1 1.1 0 1 1 0-2.2 1.1 1.1 0 0 1 0 2.2Z" />
            </svg>
          </span>
          <h1 data-testid="login-title" className="text-xl font-semibold tracking-tight">
            {title}
          </h1>
          {intro ? <p className="text-sm text-muted-foreground">{intro}</p> : null}
        </div>
        <div className="rounded-2xl border border-border bg-card p-5 shadow-sm">{children}</div>
      </div>
    </div>
  );
}
