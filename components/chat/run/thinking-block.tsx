"use client";

import { Brain, ChevronRight } from "lucide-react";
import { memo, useId, useState } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";

/**
 * The model's reasoning (Ollama `thinking`), folded away behind its first line: "Thinking…" with
 * its latest line while it grows, "Thought for N s" once done.
 */
export const ThinkingBlock = memo(function ThinkingBlock({
  text,
  live = false,
  durationMs = null,
}: {
  text: string;
  live?: boolean;
  durationMs?: number | null;
}) {
  const t = useTranslations("tools");
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const lines = text.trim().split("\n");
  const preview = (live ? lines.at(-1) : lines[0]) ?? "";
  const label = live
    ? t("thinking")
    : durationMs !== null
      ? t("thoughtFor", { seconds: String(Math.max(1, Math.round(durationMs / 1000))) })
      : t("thought");
  return (
    <div data-testid="thinking-block" data-live={live || undefined} className="text-sm">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((value) => !value)}
        className="flex max-w-full min-w-0 items-center gap-2 rounded-lg py-1 pr-2 text-left text-muted-foreground transition-colors hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
      >
        <Brain aria-hidden className="size-4 shrink-0" />
        <span className="shrink-0 font-medium">{label}</span>
        {open ? null : <span className="min-w-0 truncate opacity-80">{preview}</span>}
        <ChevronRight aria-hidden className={cx("size-3.5 shrink-0 transition-transform", open && "rotate-90")} />
      </button>
      {open ? (
        <p
          id={panelId}
          className="mt-1 ml-2 border-l-2 border-border pl-4 text-[0.8125rem] leading-relaxed whitespace-pre-wrap text-muted-foreground"
        >
          {text.trim()}
        </p>
      ) : null}
    </div>
  );
});
