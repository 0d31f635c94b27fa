"use client";

import { MessageSquareDashed, SearchX, ServerCrash } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { useTranslations } from "use-intl";

/** Placeholder rows while a conversation loads. */
export function ThreadLoading() {
  const t = useTranslations("thread");
  return (
    <div role="status" aria-label={t("loading")} className="mx-auto w-full max-w-3xl flex-1 space-y-8 px-6 pt-8">
      <div className="ml-auto h-10 w-2/5 animate-pulse rounded-3xl bg-muted" />
      <div className="space-y-2.5">
        <div className="h-3.5 w-11/12 animate-pulse rounded bg-muted" />
        <div className="h-3.5 w-4/5 animate-pulse rounded bg-muted" />
        <div className="h-3.5 w-3/5 animate-pulse rounded bg-muted" />
      </div>
    </div>
  );
}

function Centered({
  icon,
  title,
  children,
  testId,
}: {
  icon: ReactNode;
  title: string;
  children?: ReactNode;
  testId?: string;
}) {
  return (
    <div data-testid={testId} className="flex flex-1 flex-col items-center justify-center gap-3 px-6 text-center">
      <span className="grid size-11 place-items-center rounded-full bg-muted text-muted-foreground">{icon}</span>
      <h2 className="text-base font-medium">{title}</h2>
      {children ? <div className="max-w-sm text-sm text-muted-foreground">{children}</div> : null}
    </div>
  );
}

export function ThreadEmpty() {
  const t = useTranslations("thread");
  return (
    <Centered icon={<MessageSquareDashed aria-hidden className="size-5" />} title={t("emptyTitle")}>
      {t("emptyText")}
    </Centered>
  );
}

export function ThreadNotFound() {
  const t = useTranslations("thread");
  return (
    <Centered icon={<SearchX aria-hidden className="size-5" />} title={t("notFoundTitle")} testId="thread-not-found">
      {t.rich("notFoundText", {
        link: (chunks) => (
          <Link href="/" className="font-medium text-foreground underline underline-offset-2">
            {chunks}
          </Link>
        ),
      })}
    </Centered>
  );
}

export function ThreadError({ message, onRetry }: { message: string; onRetry: () => void }) {
  const t = useTranslations("thread");
  return (
    <Centered icon={<ServerCrash aria-hidden className="size-5" />} title={t("errorTitle")}>
      <p role="alert">{message}</p>
      <button
        type="button"
        onClick={onRetry}
        className="mt-3 rounded-lg border border-border px-3 py-1.5 font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
      >
        {t("tryAgain")}
      </button>
    </Centered>
  );
}
