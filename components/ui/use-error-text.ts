"use client";

import { useCallback } from "react";
import { useLocale, useTranslations } from "use-intl";
import { describeError, type ErrorTranslator, toErrorInfo } from "@/lib/client/error-text";

/**
 * How every component words an error it shows: anything caught (an `ApiError`, a run's `error`
 * event, a pull's error line, a bug) in the UI's language, from its code and details.
 */
export function useErrorText(): (error: unknown) => string {
  const t = useTranslations("errors");
  const locale = useLocale();
  return useCallback((error: unknown) => describeError(toErrorInfo(error), t as ErrorTranslator, locale), [t, locale]);
}
