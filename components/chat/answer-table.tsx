"use client";

import type { ComponentProps } from "react";
import { TableCopyDropdown } from "streamdown";
import { useTranslations } from "use-intl";

/**
 * A table in an answer: words are never broken inside a cell (see `.markdown table` in
 * app/globals.css), so a wide table scrolls sideways in its own region, which the keyboard can
 * focus and scroll, while the page stays put. The copy menu finds the table through the
 * `table-wrapper` marker, as in Streamdown's own table.
 */
export function AnswerTable({ children, node: _node, ...props }: ComponentProps<"table"> & { node?: unknown }) {
  const t = useTranslations("answer");
  return (
    <div
      data-streamdown="table-wrapper"
      className="my-4 flex flex-col gap-2 rounded-lg border border-border bg-sidebar p-2"
    >
      <div className="flex items-center justify-end gap-1">
        <TableCopyDropdown />
      </div>
      <section
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to scroll by keyboard.
        tabIndex={0}
        aria-label={t("table")}
        data-testid="answer-table-scroll"
        className="overflow-x-auto rounded-md border border-border bg-background focus-visible:outline-2 focus-visible:outline-ring"
      >
        <table {...props} data-streamdown="table" className="w-full divide-y divide-border">
          {children}
        </table>
      </section>
    </div>
  );
}
