"use client";

import { FileText, Globe } from "lucide-react";
import { memo, useCallback, useMemo, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { runSources, type TimelineEntry } from "@/lib/client/run-view";
import type { CitationCheck, CitationReport } from "@/lib/protocol/citations";
import type { Source } from "@/lib/protocol/run-events";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { useConversationFiles } from "../files/conversation-files-context";
import { linkAttachments } from "../files/link-attachments";
import { drawnAnswer, Markdown } from "../markdown";
import { citationLookup } from "./citation-checks";
import { type CitationChecks, CitationChecksContext } from "./citation-chip";
import { CitationHeader } from "./citation-header";
import { CitationPopover, type FindSupport } from "./citation-popover";
import type { CitationTarget } from "./citations";
import { domainOf, sourceHref } from "./source-link";

/**
 * The answer's text with its sources: `[n]` in the text links to source n, and the chips under
 * it list every page and file the run read, numbered as the model was told. Once its citations
 * were checked (docs/research.md, "Checking citations"), each `[n]` is coloured by its verdict and
 * opens its passage, and a line under the answer counts the verdicts.
 */
export const AnswerWithSources = memo(function AnswerWithSources({
  answer,
  streaming,
  timeline,
  report = null,
  onCheck,
  findSupport = null,
}: {
  /** The answer as the model wrote it (what the report's offsets count in). */
  answer: string;
  streaming: boolean;
  timeline: TimelineEntry[];
  report?: CitationReport | null;
  /** Has the verifier check the answer's citations: the button under it (see CitationHeader). */
  onCheck?: () => Promise<string | null>;
  /** "Find support" in the popover of a claim its source does not hold; absent for an answer not stored yet. */
  findSupport?: FindSupport | null;
}) {
  const { conversationId, names } = useConversationFiles();
  const text = useMemo(() => linkAttachments(answer, conversationId, names), [answer, conversationId, names]);
  const sources = useMemo(() => runSources(timeline), [timeline]);
  const citations = useMemo(
    () =>
      sources.flatMap((source): CitationTarget[] => {
        const href = sourceHref(source.url, conversationId);
        return href ? [{ n: source.n, href, title: withoutBidiControls(source.title) }] : [];
      }),
    [sources, conversationId],
  );
  const box = useRef<HTMLDivElement>(null);
  const [opened, setOpened] = useState<{ check: CitationCheck; anchor: HTMLElement } | null>(null);
  const close = useCallback(() => setOpened(null), []);
  const checked = report !== null && report.checks.length > 0 && !streaming;
  const checks = useMemo<CitationChecks | null>(
    () =>
      checked
        ? {
            lookup: citationLookup(report, answer, drawnAnswer(text)),
            opened: opened?.check ?? null,
            open: (check, anchor) => setOpened((now) => (now?.check === check ? null : { check, anchor })),
          }
        : null,
    [checked, report, answer, text, opened],
  );
  const cites = checked || citesAny(answer, citations);
  return (
    <>
      <div ref={box} className="relative">
        <CitationChecksContext.Provider value={checks}>
          <Markdown text={text} streaming={streaming} citations={citations} whole={checked} />
        </CitationChecksContext.Provider>
        {opened && checks ? (
          <CitationPopover
            check={opened.check}
            anchor={opened.anchor}
            container={box}
            source={sources.find((source) => source.n === opened.check.n) ?? null}
            conversationId={conversationId}
            findSupport={findSupport}
            onClose={close}
          />
        ) : null}
      </div>
      {!streaming && cites ? <CitationHeader report={report} onCheck={onCheck} /> : null}
      {sources.length > 0 ? <SourceChips sources={sources} conversationId={conversationId} /> : null}
    </>
  );
});

/** The answer has a `[n]` of one of its sources: there is something to check. */
function citesAny(answer: string, citations: CitationTarget[]): boolean {
  const numbers = new Set(citations.map((target) => target.n));
  return [...answer.matchAll(/\[(\d{1,4})\]/g)].some((match) => numbers.has(Number(match[1])));
}

function SourceChips({ sources, conversationId }: { sources: Source[]; conversationId: string | null }) {
  const t = useTranslations("answer");
  return (
    <nav aria-label={t("sources")} data-testid="answer-sources" className="mt-3">
      <ol className="flex flex-wrap gap-1.5">
        {sources.map((source) => {
          const href = sourceHref(source.url, conversationId);
          const attachment = source.url.startsWith("attachment:");
          const title = withoutBidiControls(source.title);
          const where = attachment ? t("attachment") : domainOf(source.url);
          const Icon = attachment ? FileText : Globe;
          const body = (
            <>
              <span className="grid size-4 shrink-0 place-items-center rounded bg-muted text-[0.625rem] font-semibold tabular-nums">
                {source.n}
              </span>
              <Icon aria-hidden className="size-3.5 shrink-0 text-muted-foreground" />
              <span className="min-w-0 truncate">{title}</span>
              {where && where !== title ? <span className="shrink-0 text-muted-foreground">{where}</span> : null}
            </>
          );
          const chip =
            "flex max-w-64 items-center gap-1.5 rounded-full border border-border px-2 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-ring";
          return (
            <li key={source.n} data-testid="source-chip" data-source={source.n}>
              {href ? (
                <a
                  href={href}
                  title={source.url}
                  {...(attachment ? { download: true } : { target: "_blank", rel: "noopener noreferrer" })}
                  className={`${chip} hover:bg-muted/60`}
                >
                  {body}
                </a>
              ) : (
                <span title={source.url} className={chip}>
                  {body}
                </span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
