"use client";

import { useTranslations } from "use-intl";
import type { SearchHit, Source } from "@/lib/protocol/run-events";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { useConversationFiles } from "../files/conversation-files-context";
import { domainOf, sourceHref } from "../sources/source-link";

const LINK = "font-medium underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-ring";

/** web_search's results on its card: title (a link), domain and snippet each, never the JSON. */
export function SearchResults({ results }: { results: SearchHit[] }) {
  const t = useTranslations("tools");
  return (
    <section>
      <h4 className="mb-1 text-xs font-medium text-muted-foreground">{t("result")}</h4>
      {results.length === 0 ? (
        <p className="text-xs text-muted-foreground">{t("noResults")}</p>
      ) : (
        <ol data-testid="search-results" className="space-y-2">
          {results.map((hit, index) => {
            const href = sourceHref(hit.url, null);
            const title = withoutBidiControls(hit.title) || hit.url;
            return (
              <li key={index} data-testid="search-result" className="min-w-0">
                {href ? (
                  <a
                    href={href}
                    target="_blank"
                    rel="noopener noreferrer"
                    className={`${LINK} text-blue-700 dark:text-blue-300`}
                  >
                    {title}
                  </a>
                ) : (
                  <span className="font-medium">{title}</span>
                )}
                <span className="ml-2 text-xs text-muted-foreground">{domainOf(hit.url)}</span>
                {hit.snippet ? (
                  <p className="text-xs text-muted-foreground wrap-anywhere">{withoutBidiControls(hit.snippet)}</p>
                ) : null}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/** The page or file a call read, with its source number: a link when it is one. */
export function ReadSourceLine({ source }: { source: Source }) {
  const t = useTranslations("tools");
  const { conversationId } = useConversationFiles();
  const href = sourceHref(source.url, conversationId);
  const title = withoutBidiControls(source.title);
  return (
    <p data-testid="tool-source" className="flex min-w-0 items-baseline gap-1.5 text-xs">
      <span className="shrink-0 text-muted-foreground">{t("source", { n: source.n })}</span>
      {href ? (
        <a
          href={href}
          title={source.url}
          {...(source.url.startsWith("attachment:")
            ? { download: true }
            : { target: "_blank", rel: "noopener noreferrer" })}
          className={`${LINK} truncate`}
        >
          {title}
        </a>
      ) : (
        <span className="truncate">{title}</span>
      )}
    </p>
  );
}
