"use client";

import { useId } from "react";
import useSWR from "swr";
import useSWRMutation from "swr/mutation";
import { useTranslations } from "use-intl";
import { InlineError } from "@/components/ui/field";
import { Switch } from "@/components/ui/switch";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";

/** Open or close sign-up: when closed, only the admin adds accounts. */
export function SignupSwitch() {
  const t = useTranslations("admin");
  const message = useErrorText();
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
        <Switch
          on={open ?? false}
          onChange={() => void toggle()}
          disabled={open === null || busy}
          labelledBy={labelId}
          testId="signup-switch"
        />
      </div>
      {error ? <InlineError>{error}</InlineError> : null}
    </div>
  );
}
