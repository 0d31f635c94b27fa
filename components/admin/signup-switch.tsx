"use client";

import { useId } from "react";
import useSWR from "swr";
import useSWRMutation from "swr/mutation";
import { useTranslations } from "use-intl";
import { InlineError } from "@/components/ui/field";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { cx } from "@/lib/client/cx";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Open or close sign-up: when closed, only the admin adds accounts. */
export function SignupSwitch() {
  const t = useTranslations("admin");
  const { data, error: loadError } = useSWR(cacheKeys.signup, () => api.adminSettings());
  // The server answers with the new setting, which becomes what the switch shows.
  const switching = useSWRMutation(
    cacheKeys.signup,
    (_key: string, { arg }: { arg: boolean }) => api.setSignupOpen(arg),
    { populateCache: true, revalidate: false, throwOnError: false },
  );
  const labelId = useId();
  const open = data?.signupOpen ?? null;
  const busy = switching.isMutating;
  const failure = (busy ? undefined : switching.error) ?? loadError;
  const error = failure === undefined ? null : message(failure);

  const toggle = async () => {
    if (open !== null) await switching.trigger(!open);
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
