"use client";

import { FileText, Globe } from "lucide-react";
import { memo, useMemo } from "react";
import { useTranslations } from "use-intl";
import { runSources, type TimelineEntry } from "@/lib/client/run-view";
import type { Source } from "@/lib/protocol/run-events";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { useConversationFiles } from "../files/conversation-files-context";
import { Markdown } from "../markdown";
import type { CitationTarget } from "./citations";
import { domainOf, sourceHref } from "./source-link";

/**
 * The answer's text with its sources: `[n]` in the text links to source n, and the chips under
 * it list every page and file the run read, numbered as the model was told.
 */
export const AnswerWithSources = memo(function AnswerWithSources({
  text,
  streaming,
  timeline,
}: {
  text: string;
  streaming: boolean;
  timeline: TimelineEntry[];
}) {
  const { conversationId } = useConversationFiles();
  const sources = useMemo(() => runSources(timeline), [timeline]);
  const citations = useMemo(
    () =>
      sources.flatMap((source): CitationTarget[] => {
        const href = sourceHref(source.url, conversationId);
        return href ? [{ n: source.n, href, title: withoutBidiControls(source.title) }] : [];
      }),
    [sources, conversationId],
  );
  return (
    <>
      <Markdown text={text} streaming={streaming} citations={citations} />
      {sources.length > 0 ? <SourceChips sources={sources} conversationId={conversationId} /> : null}
    </>
  );
});

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
