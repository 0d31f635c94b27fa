"use client";

import { code } from "@streamdown/code";
import { memo } from "react";
import { type Components, defaultComponents, type PluginConfig, Streamdown } from "streamdown";

const DefaultLink = defaultComponents.a;

// Streamdown draws bold as a styled <span>; <strong> keeps the emphasis for screen readers.
const components: Components = {
  strong: ({ children }) => <strong className="font-semibold">{children}</strong>,
  // The conversation's own files (see linkAttachments) download directly; other links keep
  // Streamdown's confirmation before leaving the app.
  a: (props) =>
    props.href?.startsWith("/api/conversations/") ? (
      <a href={props.href} download className="font-medium underline underline-offset-2">
        {props.children}
      </a>
    ) : (
      <DefaultLink {...props} />
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
