"use client";

import { Loader2, ShieldCheck } from "lucide-react";
import { useState } from "react";
import { useTranslations } from "use-intl";
import type { CitationReport } from "@/lib/protocol/citations";
import { citationSummary, summaryText } from "./citation-summary";

/**
 * The answer's citation line: how its citations checked out ("27 of 31 citations supported · 3
 * partly · 1 not found"), and "Check citations", which has the verifier judge them (a stored answer
 * only) and shows its progress, then the new counts, or why it failed.
 */
export function CitationHeader({
  report,
  onCheck,
}: {
  report: CitationReport | null;
  /** Resolves with an error to show, or null once the new report is in. Absent: no button. */
  onCheck?: () => Promise<string | null>;
}) {
  const t = useTranslations("citations");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const summary = report ? citationSummary(report) : null;
  if (!summary && !onCheck) return null;
  const check = () => {
    if (!onCheck || busy) return;
    setBusy(true);
    setError(null);
    void onCheck().then((failure) => {
      setBusy(false);
      setError(failure);
    });
  };
  return (
    <div
      data-testid="citation-header"
      className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground"
    >
      {summary ? (
        <span data-testid="citation-summary" className="inline-flex items-center gap-1.5">
          <ShieldCheck aria-hidden className="size-3.5 shrink-0" />
          {summaryText(summary, t)}
        </span>
      ) : null}
      {onCheck ? (
        <button
          type="button"
          data-testid="check-citations"
          disabled={busy}
          onClick={check}
          className="inline-flex items-center gap-1 rounded-md border border-border px-2 py-0.5 font-medium text-foreground transition-colors hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-60"
        >
          {busy ? <Loader2 aria-hidden className="size-3.5 animate-spin" /> : null}
          {busy ? t("checking") : t("check")}
        </button>
      ) : null}
      <span role="status" className="sr-only">
        {busy ? t("checking") : ""}
      </span>
      {error ? (
        <span role="alert" className="text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </div>
  );
}
