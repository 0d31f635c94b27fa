"use client";

import { Check } from "lucide-react";
import { createContext, type ReactNode, useContext } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import type { CitationCheck } from "@/lib/protocol/citations";
import { type CheckLookup, type ChipTone, chipTone } from "./citation-checks";

/** What a drawn `[n]` needs to show its check: the report's lookup, and the passage popover it opens. */
export interface CitationChecks {
  lookup: CheckLookup;
  opened: CitationCheck | null;
  open: (check: CitationCheck, anchor: HTMLElement) => void;
}

export const CitationChecksContext = createContext<CitationChecks | null>(null);

/**
 * Verdict colours, readable on the answer's background in light and dark (contrast ≥ 4.5:1 for the
 * small text); `found` is neutral with a tick: the finder found the words, no model judged them.
 */
export const TONE_CLASS: Record<ChipTone, string> = {
  supported: "bg-green-100 text-green-800 dark:bg-green-400/15 dark:text-green-300",
  partly: "bg-amber-100 text-amber-900 dark:bg-amber-400/15 dark:text-amber-200",
  unsupported: "bg-red-100 text-red-800 dark:bg-red-400/15 dark:text-red-300",
  found: "bg-muted text-foreground",
};

/** The check of the `[n]` link drawn at `offset` of the answer, when its answer's citations were checked. */
export function useCitationCheck(offset: number | undefined, n: string | null): CitationCheck | null {
  const checks = useContext(CitationChecksContext);
  if (!checks || offset === undefined || n === null) return null;
  return checks.lookup(offset, Number(n));
}

/** A checked `[n]`: coloured by its verdict, named with it; a click opens its passage. */
export function CitationChip({ check, children }: { check: CitationCheck; children: ReactNode }) {
  const t = useTranslations("citations");
  const checks = useContext(CitationChecksContext);
  const tone = chipTone(check.verdict);
  return (
    <button
      type="button"
      data-testid="citation"
      data-citation={check.n}
      data-verdict={check.verdict}
      aria-haspopup="dialog"
      aria-expanded={checks?.opened === check}
      aria-label={t("chip", { n: check.n, verdict: t(`verdict.${check.verdict}`) })}
      onClick={(event) => checks?.open(check, event.currentTarget)}
      className={cx(
        "inline-flex cursor-pointer items-center gap-px rounded px-0.5 align-super text-xs leading-none font-medium hover:underline focus-visible:outline-2 focus-visible:outline-ring",
        TONE_CLASS[tone],
      )}
    >
      {children}
      {tone === "found" ? <Check aria-hidden className="size-2.5" strokeWidth={3} /> : null}
    </button>
  );
}
