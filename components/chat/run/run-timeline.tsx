import { memo } from "react";
import type { TimelineEntry } from "@/lib/client/run-view";
import { PlanCard } from "./plan-card";
import { ThinkingBlock } from "./thinking-block";
import { CompactDivider, RunNotice, TakenInterrupts, ToolSelectionNote } from "./timeline-notes";
import { ToolCard } from "./tool-card";

/** What the agent did before answering, in order: tool cards, thinking, taken interrupts, notes. */
export const RunTimeline = memo(function RunTimeline({
  timeline,
  runEnded,
}: {
  timeline: TimelineEntry[];
  runEnded: boolean;
}) {
  if (timeline.length === 0) return null;
  // DAG mode: a step's tool calls show inside its step of the plan card.
  const stepTools = timeline.filter(
    (entry): entry is Extract<TimelineEntry, { kind: "tool" }> => entry.kind === "tool" && entry.stepId !== undefined,
  );
  return (
    <div data-testid="run-timeline" className="mb-4 flex flex-col gap-2">
      {timeline.map((entry) => {
        switch (entry.kind) {
          case "plan":
            return <PlanCard key={entry.key} entry={entry} tools={stepTools} runEnded={runEnded} />;
          case "tool":
            if (entry.stepId !== undefined) return null;
            return <ToolCard key={entry.key} entry={entry} runEnded={runEnded} />;
          case "thinking":
            return <ThinkingBlock key={entry.key} text={entry.text} live={entry.live} durationMs={entry.durationMs} />;
          case "interrupt":
            return <TakenInterrupts key={entry.key} interrupts={entry.interrupts} />;
          case "notice":
            return <RunNotice key={entry.key} text={entry.text} />;
          case "tool_selection":
            return <ToolSelectionNote key={entry.key} selected={entry.selected} total={entry.total} />;
          case "compact":
            return <CompactDivider key={entry.key} event={entry} />;
          default:
            return null;
        }
      })}
    </div>
  );
});
