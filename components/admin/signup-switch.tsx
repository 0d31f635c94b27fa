"use client";

import { useEffect, useId, useState } from "react";
import { useTranslations } from "use-intl";
import { InlineError } from "@/components/ui/field";
import { api } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";

/** Open or close sign-up: when closed, only the admin adds accounts. */
export function SignupSwitch() {
  const t = useTranslations("admin");
  const [open, setOpen] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const labelId = useId();

  useEffect(() => {
    const controller = new AbortController();
    api
      .adminSettings(controller.signal)
      .then((settings) => setOpen(settings.signupOpen))
      .catch((failure: unknown) => {
        if (!controller.signal.aborted) setError(failure instanceof Error ? failure.message : String(failure));
      });
    return () => controller.abort();
  }, []);

  const toggle = async () => {
    if (open === null) return;
    setBusy(true);
    setError(null);
    try {
      setOpen((await api.setSignupOpen(!open)).signupOpen);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-2">
      <div className="flex items-center justify-between gap-4 rounded-xl border border-border px-4 py-3">
        <span id={labelId} className="text-sm font-medium">
          {t("signupOpen")}
        </span>
        <button
          type="button"
          role="switch"
          data-testid="signup-switch"
          aria-checked={open ?? false}
          aria-labelledby={labelId}
          disabled={open === null || busy}
          onClick={() => void toggle()}
          className={cx(
            "relative h-6 w-11 shrink-0 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-60",
            open ? "bg-foreground" : "bg-muted-foreground/40",
          )}
        >
          <span
            aria-hidden
            className={cx(
              "absolute top-0.5 left-0.5 size-5 rounded-full bg-background shadow transition-transform motion-reduce:transition-none",
              open && "translate-x-5",
            )}
          />
        </button>
      </div>
      {error ? <InlineError>{error}</InlineError> : null}
    </div>
  );
}
