"use client";

import { ChevronRight } from "lucide-react";
import { memo, useId, useState } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import { runSources, type TimelineEntry } from "@/lib/client/run-view";
import { ApprovalCard } from "./approval-card";
import { PlanCard } from "./plan-card";
import { ThinkingBlock } from "./thinking-block";
import { CompactDivider, RunNotice, TakenInterrupts, ToolSelectionNote } from "./timeline-notes";
import { ToolCard } from "./tool-card";
import { useFormatElapsed } from "./use-elapsed";

/**
 * What the agent did before answering, in order: tool cards, thinking, taken interrupts, notes.
 * Once a run that used tools has ended, the trail folds into one line ("5 rounds · 10 sources ·
 * 12 s") that opens it again; a live run shows everything.
 */
export const RunTimeline = memo(function RunTimeline({
  timeline,
  runEnded,
  elapsedMs,
}: {
  timeline: TimelineEntry[];
  runEnded: boolean;
  elapsedMs: number | null;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  if (timeline.length === 0) return null;
  const rounds = new Set(
    timeline.flatMap((entry) => (entry.kind === "tool" ? [`${entry.stepId ?? ""}:${entry.iteration}`] : [])),
  ).size;
  // DAG mode: a step's tool calls show inside its step of the plan card.
  const stepTools = timeline.filter((entry): entry is ToolEntry => entry.kind === "tool" && entry.stepId !== undefined);
  const foldable = runEnded && rounds > 0;
  const shown = !foldable || open;
  return (
    <div className="mb-4 flex flex-col gap-2">
      {foldable ? (
        <TrailSummary
          rounds={rounds}
          sources={runSources(timeline).length}
          elapsedMs={elapsedMs}
          open={open}
          panelId={panelId}
          onToggle={() => setOpen((value) => !value)}
        />
      ) : null}
      <div id={panelId} data-testid="run-timeline" hidden={!shown} className="flex flex-col gap-2">
        {timeline.map((entry) => (
          <TimelineItem key={entry.key} entry={entry} stepTools={stepTools} runEnded={runEnded} />
        ))}
      </div>
    </div>
  );
});

function TrailSummary({
  rounds,
  sources,
  elapsedMs,
  open,
  panelId,
  onToggle,
}: {
  rounds: number;
  sources: number;
  elapsedMs: number | null;
  open: boolean;
  panelId: string;
  onToggle: () => void;
}) {
  const t = useTranslations("tools");
  const formatElapsed = useFormatElapsed();
  const time = elapsedMs === null ? "" : formatElapsed(elapsedMs);
  return (
    <button
      type="button"
      data-testid="run-trail-toggle"
      aria-expanded={open}
      aria-controls={panelId}
      onClick={onToggle}
      className="flex w-fit items-center gap-1.5 rounded-lg px-1.5 py-1 text-sm text-muted-foreground tabular-nums hover:bg-muted/60 hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
    >
      <ChevronRight aria-hidden className={cx("size-4 shrink-0 transition-transform", open && "rotate-90")} />
      {t("trail", { rounds, sources, hasTime: time ? "true" : "false", time })}
    </button>
  );
}

type ToolEntry = Extract<TimelineEntry, { kind: "tool" }>;

function TimelineItem({
  entry,
  stepTools,
  runEnded,
}: {
  entry: TimelineEntry;
  stepTools: ToolEntry[];
  runEnded: boolean;
}) {
  switch (entry.kind) {
    case "plan":
      return <PlanCard entry={entry} tools={stepTools} runEnded={runEnded} />;
    case "tool":
      return entry.stepId === undefined ? <ToolCard entry={entry} runEnded={runEnded} /> : null;
    case "approval":
      return <ApprovalCard entry={entry} runEnded={runEnded} />;
    case "thinking":
      return <ThinkingBlock text={entry.text} live={entry.live} durationMs={entry.durationMs} />;
    case "interrupt":
      return <TakenInterrupts interrupts={entry.interrupts} />;
    case "notice":
      return <RunNotice text={entry.text} about={entry.about} />;
    case "tool_selection":
      return (
        <ToolSelectionNote
          selected={entry.selected}
          total={entry.total}
          fellBack={entry.fellBack}
          structured={entry.structured}
        />
      );
    case "compact":
      return <CompactDivider event={entry} />;
    default:
      return null;
  }
}
