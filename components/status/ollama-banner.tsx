"use client";

import { ServerCrash, TriangleAlert } from "lucide-react";
import { useTranslations } from "use-intl";
import type { HealthState } from "./use-ollama-health";

/** Says what is wrong and how to fix it when Ollama (or the app server itself) cannot be reached. */
export function OllamaBanner({ health }: { health: HealthState }) {
  const t = useTranslations("banner");
  if (health.kind === "ollama-down") {
    return (
      <div
        role="alert"
        data-testid="ollama-banner"
        className="flex gap-3 border-b border-amber-300/60 bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:border-amber-400/20 dark:bg-amber-950/40 dark:text-amber-100"
      >
        <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0 text-amber-600 dark:text-amber-400" />
        <div className="min-w-0 space-y-0.5">
          <p className="font-medium">{t("ollamaDown")}</p>
          <p className="text-amber-900/80 dark:text-amber-100/75">
            {t.rich("ollamaFix", { code: (chunks) => <Code>{String(chunks)}</Code> })}
          </p>
          {health.detail ? (
            <details className="text-xs text-amber-900/70 dark:text-amber-100/60">
              <summary className="cursor-pointer select-none hover:underline">{t("details")}</summary>
              <p className="mt-1 break-words">{health.detail}</p>
            </details>
          ) : null}
        </div>
      </div>
    );
  }
  if (health.kind === "server-down" || health.kind === "db-down") {
    return (
      <div
        role="alert"
        data-testid="server-banner"
        className="flex items-center gap-3 border-b border-red-300/60 bg-red-50 px-4 py-3 text-sm text-red-950 dark:border-red-400/20 dark:bg-red-950/40 dark:text-red-100"
      >
        <ServerCrash aria-hidden className="size-4 shrink-0 text-red-600 dark:text-red-400" />
        <p>{health.kind === "server-down" ? t("serverDown") : t("dbDown")}</p>
      </div>
    );
  }
  return null;
}

function Code({ children }: { children: string }) {
  return (
    <code className="rounded bg-amber-100 px-1 py-0.5 font-mono text-[0.8125rem] dark:bg-amber-400/15">{children}</code>
  );
}
