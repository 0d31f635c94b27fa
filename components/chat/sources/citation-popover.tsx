"use client";

import { ExternalLink, Search, X } from "lucide-react";
import { type RefObject, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { MENU_PANEL } from "@/components/ui/menu";
import { cx } from "@/lib/client/cx";
import type { CitationCheck } from "@/lib/protocol/citations";
import type { Source } from "@/lib/protocol/run-events";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { chipTone } from "./citation-checks";
import { TONE_CLASS } from "./citation-chip";
import { findSupportQuestion, wantsSupport } from "./find-support";
import { markedPieces } from "./marked-passage";
import { passageHref } from "./passage-link";
import { sourceHref } from "./source-link";

/** "Find support" for a claim: starts the follow-up turn with its question; `blocked` while a run works in the conversation. */
export interface FindSupport {
  blocked: boolean;
  /** Resolves with an error to show, or null once the turn started. */
  start: (question: string) => Promise<string | null>;
}

/** Space kept between the chip and the panel, and between the panel and the answer's edges (px). */
const GAP = 4;

/**
 * A checked citation's passage, opened under its chip, the look of the app's menus: the source's
 * title, the verdict and the verifier's reason, the passage with the claim's words marked, what it
 * lacks, and a link to where it is; under a claim its source does not hold, "Find support". It takes the focus; Escape (used up, as in a menu) or a press
 * outside closes it and gives the focus back to the chip; so does Tab leaving it.
 */
export function CitationPopover({
  check,
  anchor,
  container,
  source,
  conversationId,
  findSupport = null,
  onClose,
}: {
  check: CitationCheck;
  anchor: HTMLElement;
  /** The answer's box, the panel's positioning parent. */
  container: RefObject<HTMLElement | null>;
  source: Source | null;
  conversationId: string | null;
  findSupport?: FindSupport | null;
  onClose: () => void;
}) {
  const t = useTranslations("citations");
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const [place, setPlace] = useState<{ top: number; left: number } | null>(null);

  useLayoutEffect(() => {
    const box = container.current;
    if (!box || !panel.current) return;
    const outer = box.getBoundingClientRect();
    const chip = anchor.getBoundingClientRect();
    const width = panel.current.offsetWidth;
    const left = Math.max(0, Math.min(chip.left - outer.left, outer.width - width));
    setPlace({ top: chip.bottom - outer.top + GAP, left });
  }, [anchor, container]);

  useEffect(() => {
    panel.current?.focus();
    const close = (focusChip: boolean) => {
      onClose();
      if (focusChip) anchor.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!panel.current?.contains(target) && !anchor.contains(target)) close(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      close(true);
    };
    document.addEventListener("pointerdown", onPointerDown);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown);
      document.removeEventListener("keydown", onKeyDown);
    };
  }, [anchor, onClose]);

  const href = source ? sourceHref(source.url, conversationId) : null;
  const title = source ? withoutBidiControls(source.title) : String(check.n);
  const where = source && href ? passageHref(source.url, href, check.passage) : null;
  const attachment = source?.url.startsWith("attachment:") ?? false;
  const page = check.passage?.pages?.first;
  const tone = chipTone(check.verdict);

  return (
    <div
      ref={panel}
      role="dialog"
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid="citation-popover"
      data-verdict={check.verdict}
      onBlur={(event) => {
        const next = event.relatedTarget as Node | null;
        if (next && !panel.current?.contains(next) && !anchor.contains(next)) onClose();
      }}
      style={place ? { top: place.top, left: place.left } : { top: 0, left: 0, visibility: "hidden" }}
      className={cx(
        MENU_PANEL,
        "absolute z-20 flex w-[min(26rem,100%)] flex-col gap-2 p-3 text-sm outline-none focus-visible:outline-2 focus-visible:outline-ring",
      )}
    >
      <div className="flex items-start gap-2">
        <span className="mt-0.5 grid size-5 shrink-0 place-items-center rounded bg-muted text-xs font-semibold tabular-nums">
          {check.n}
        </span>
        <h3 id={titleId} className="min-w-0 flex-1 font-medium wrap-anywhere">
          <span className="sr-only">{t("popover.label", { n: check.n })} </span>
          {title}
        </h3>
        <IconButton size="sm" label={t("popover.close")} className="-mt-1 -mr-1" onClick={() => onClose()}>
          <X aria-hidden className="size-4" />
        </IconButton>
      </div>
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span
          data-testid="citation-verdict"
          className={cx("rounded px-1.5 py-0.5 text-xs font-medium", TONE_CLASS[tone])}
        >
          {t(`verdict.${check.verdict}`)}
        </span>
        {check.reason ? (
          <span className="text-muted-foreground">{t("popover.reason", { reason: check.reason })}</span>
        ) : null}
      </p>
      <div>
        <p className="text-xs font-medium text-muted-foreground">{t("popover.claim")}</p>
        <p className="wrap-anywhere">{check.sentence}</p>
      </div>
      {check.passage ? (
        <figure>
          <figcaption className="text-xs font-medium text-muted-foreground">{t("popover.passage")}</figcaption>
          <blockquote
            data-testid="citation-passage"
            className="mt-0.5 max-h-48 overflow-y-auto border-l-2 border-border pl-2.5 whitespace-pre-line wrap-anywhere"
          >
            {markedPieces(check.passage.text, check.passage.matched).map((piece, index) =>
              piece.marked ? (
                <mark key={index} className="rounded-sm bg-yellow-200 px-px text-inherit dark:bg-yellow-300/30">
                  {piece.text}
                </mark>
              ) : (
                piece.text
              ),
            )}
          </blockquote>
        </figure>
      ) : (
        <p className="text-muted-foreground">{t("popover.noPassage")}</p>
      )}
      {check.missing.length > 0 ? (
        <p data-testid="citation-missing" className="text-red-800 dark:text-red-300">
          {t("popover.missing", { terms: check.missing.join(", ") })}
        </p>
      ) : null}
      {where ? (
        <a
          href={where}
          data-testid="citation-open"
          {...(attachment ? { download: true } : { target: "_blank", rel: "noopener noreferrer" })}
          className="inline-flex items-center gap-1.5 self-start font-medium underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-ring"
        >
          <ExternalLink aria-hidden className="size-3.5" />
          {page !== undefined
            ? t("popover.openPage", { page })
            : where !== href
              ? t("popover.openPassage")
              : t("popover.openSource")}
        </a>
      ) : null}
      {findSupport && wantsSupport(check.verdict) ? (
        <FindSupportButton
          findSupport={findSupport}
          question={findSupportQuestion(check, source, t)}
          onStarted={onClose}
        />
      ) : null}
    </div>
  );
}

function FindSupportButton({
  findSupport,
  question,
  onStarted,
}: {
  findSupport: FindSupport;
  question: string;
  onStarted: () => void;
}) {
  const t = useTranslations("citations.findSupport");
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setStarting(true);
    setError(null);
    const failure = await findSupport.start(question);
    setStarting(false);
    if (failure) setError(failure);
    else onStarted();
  };
  return (
    <div className="flex flex-col items-start gap-1 border-t border-border pt-2">
      <button
        type="button"
        data-testid="find-support"
        title={t("hint")}
        disabled={findSupport.blocked || starting}
        onClick={() => void start()}
        className="inline-flex items-center gap-1.5 rounded-md border border-border px-2 py-1 text-xs font-medium hover:bg-muted/60 focus-visible:outline-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50"
      >
        <Search aria-hidden className="size-3.5" />
        {starting ? t("starting") : t("button")}
      </button>
      {error ? (
        <p role="alert" className="text-xs text-red-800 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
