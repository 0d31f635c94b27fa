"use client";

import { code } from "@streamdown/code";
import { memo } from "react";
import { type Components, type PluginConfig, Streamdown } from "streamdown";

const SAFE_LINK = /^(https?:|mailto:)/i;

// Streamdown draws bold as a styled <span>; <strong> keeps the emphasis for screen readers.
const components: Components = {
  strong: ({ children }) => <strong className="font-semibold">{children}</strong>,
  // The conversation's own files (see linkAttachments) download directly; web links open in a new
  // tab that cannot reach back into this one; anything else (javascript:, data:…) is plain text.
  a: ({ href, children }) =>
    href?.startsWith("/api/conversations/") ? (
      <a href={href} download className="font-medium underline underline-offset-2">
        {children}
      </a>
    ) : href && SAFE_LINK.test(href) ? (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        data-testid="answer-link"
        className="font-medium underline underline-offset-2 wrap-anywhere"
      >
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
};

// Shiki highlighting (light and dark themes, picked by the colour scheme), languages loaded on demand.
const plugins: PluginConfig = { code };

/**
 * An answer rendered as Markdown. Streamdown copes with half-written Markdown (an open code fence,
 * a table row in progress) while tokens arrive, and memoises finished blocks.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <Streamdown
      className="markdown"
      components={components}
      plugins={plugins}
      isAnimating={streaming}
      caret={streaming ? "block" : undefined}
      controls={{ code: true, table: { copy: true, download: false, fullscreen: false }, mermaid: false }}
    >
      {text}
    </Streamdown>
  );
});
