"use client";

import { code } from "@streamdown/code";
import { createMathPlugin } from "@streamdown/math";
import { ImageOff } from "lucide-react";
import { type ComponentProps, memo, useMemo } from "react";
import { type Components, defaultComponents, defaultRemarkPlugins, type PluginConfig, Streamdown } from "streamdown";
import type { Pluggable } from "unified";
import { useTranslations } from "use-intl";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { answerImage } from "./answer-images";
import { normalizeTexDelimiters, remarkDollarAmounts } from "./answer-math";
import { AnswerTable } from "./answer-table";
import { CitationChip, useCitationCheck } from "./sources/citation-chip";
import { type CitationTarget, citationNumber, remarkCitations } from "./sources/citations";
// KaTeX's stylesheet and fonts are bundled and served by this app: the CSP allows no other origin.
import "katex/dist/katex.min.css";

const SAFE_LINK = /^(https?:|mailto:)/i;

const StreamdownImage = defaultComponents.img;

/**
 * An image in an answer: this app's own files are drawn; a web image from anywhere else is never
 * fetched by itself (its address could carry the conversation away), it is a link showing where it
 * points. Raw `<img>` HTML in an answer comes here too.
 */
function AnswerImage(props: ComponentProps<typeof StreamdownImage>) {
  const t = useTranslations("answer");
  const image = answerImage(
    typeof props.src === "string" ? props.src : null,
    typeof window === "undefined" ? null : window.location.origin,
  );
  if (image.kind === "inline") return <StreamdownImage {...props} src={image.src} />;
  const label = props.alt?.trim() || t("image");
  if (image.kind === "text") return <span>{label}</span>;
  return (
    <a
      href={image.href}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="answer-image-link"
      title={`${t("imageNotLoaded")} ${image.href}`}
      className="inline-flex max-w-full items-baseline gap-1.5 rounded-md border border-border px-1.5 py-0.5 align-baseline text-sm underline-offset-2 hover:underline"
    >
      <ImageOff aria-hidden className="size-3.5 shrink-0 self-center text-muted-foreground" />
      <span className="sr-only">{t("imageNotLoaded")}</span>
      <span className="font-medium">{label}</span>
      <span className="min-w-0 font-mono text-xs text-muted-foreground wrap-anywhere">{image.href}</span>
    </a>
  );
}

const CITATION_CLASS =
  "rounded px-0.5 text-xs font-medium text-blue-700 no-underline align-super hover:underline dark:text-blue-300";

// Streamdown draws bold as a styled <span>; <strong> keeps the emphasis for screen readers.
const components: Components = {
  strong: ({ children }) => <strong className="font-semibold">{children}</strong>,
  // The conversation's own files (see linkAttachments) download directly; web links open in a new
  // tab that cannot reach back into this one; anything else (javascript:, data:…) is plain text.
  a: function AnswerLink({ href, children, title, node }) {
    const citation = citationNumber(children) ?? undefined;
    // A checked citation is a chip that opens its passage (the link to the source is in there).
    const check = useCitationCheck(node?.position?.start.offset, citation ?? null);
    if (check) return <CitationChip check={check}>{children}</CitationChip>;
    return href?.startsWith("/api/conversations/") ? (
      <a href={href} download data-citation={citation} className="font-medium underline underline-offset-2">
        {children}
      </a>
    ) : href && SAFE_LINK.test(href) ? (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        data-testid={citation ? "citation" : "answer-link"}
        data-citation={citation}
        title={title}
        className={citation ? CITATION_CLASS : "font-medium underline underline-offset-2 wrap-anywhere"}
      >
        {children}
      </a>
    ) : (
      <span>{children}</span>
    );
  },
  img: AnswerImage,
  table: AnswerTable,
  // <picture><source srcset=…> would let the browser pick a remote image for an allowed <img>.
  source: () => null,
};

// Shiki highlighting (light and dark themes, picked by the colour scheme), languages loaded on demand;
// KaTeX for $…$, $$…$$, \(…\) and \[…\] (dollar amounts stay text: remarkDollarAmounts).
const plugins: PluginConfig = { code, math: createMathPlugin({ singleDollarTextMath: true }) };
const answerRemarkPlugins = [...Object.values(defaultRemarkPlugins), remarkDollarAmounts];

/** The text Streamdown is given for an answer: bidi controls dropped, TeX delimiters made KaTeX's. */
export function drawnAnswer(text: string): string {
  return normalizeTexDelimiters(withoutBidiControls(text));
}

/**
 * An answer rendered as Markdown. Streamdown copes with half-written Markdown (an open code fence,
 * a table row in progress) while tokens arrive, and memoises finished blocks. Bidi embeddings,
 * overrides and isolates are dropped first: they would show text (or code) other than what it is.
 */
export const Markdown = memo(function Markdown({
  text,
  streaming,
  citations,
  whole = false,
}: {
  text: string;
  streaming: boolean;
  /** The run's sources by number: `[n]` in the text links to source n. */
  citations?: CitationTarget[];
  /**
   * Parsed as one document rather than block by block, so each node's offsets are the answer's own:
   * what matches a checked citation to its chip. A finished answer only (no streaming repairs).
   */
  whole?: boolean;
}) {
  const remarkPlugins = useMemo(
    () =>
      citations?.length
        ? [...answerRemarkPlugins, [remarkCitations, { targets: citations }] satisfies Pluggable]
        : answerRemarkPlugins,
    [citations],
  );
  return (
    <Streamdown
      className="markdown"
      components={components}
      plugins={plugins}
      remarkPlugins={remarkPlugins}
      mode={whole && !streaming ? "static" : "streaming"}
      isAnimating={streaming}
      caret={streaming ? "block" : undefined}
      controls={{ code: true, table: { copy: true, download: false, fullscreen: false }, mermaid: false }}
    >
      {drawnAnswer(text)}
    </Streamdown>
  );
});
