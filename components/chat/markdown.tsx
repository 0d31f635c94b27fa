"use client";

import { memo } from "react";
import { type Components, Streamdown } from "streamdown";

// Streamdown draws bold as a styled <span>; <strong> keeps the emphasis for screen readers.
const components: Components = {
  strong: ({ children }) => <strong className="font-semibold">{children}</strong>,
};

/**
 * An answer rendered as Markdown. Streamdown copes with half-written Markdown (an open code fence,
 * a table row in progress) while tokens arrive, and memoises finished blocks.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <Streamdown
      className="markdown"
      components={components}
      isAnimating={streaming}
      caret={streaming ? "block" : undefined}
      controls={{ code: true, table: { copy: true, download: false, fullscreen: false }, mermaid: false }}
    >
      {text}
    </Streamdown>
  );
});
