"use client";

import { Ban, ChevronRight, CircleCheck, CircleX, LoaderCircle } from "lucide-react";
import { memo, useId, useState } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import type { TimelineEntry, ToolResult } from "@/lib/client/run-view";
import type { ToolErrorKind } from "@/lib/protocol/tool-failures";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { useConversationFiles } from "../files/conversation-files-context";
import { ArtifactPreview } from "./artifact-preview";
import { ReadSourceLine, SearchResults } from "./read-source";
import { observationBody, sourcePagesLabel, toolMeta } from "./tool-meta";
import { useElapsed, useFormatElapsed } from "./use-elapsed";

type ToolEntry = Extract<TimelineEntry, { kind: "tool" }>;

export type ToolCardState = "running" | "ok" | "error" | "cancelled";

function prettyArgs(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? "";
  } catch {
    return String(args);
  }
}

/**
 * One tool call of a run: collapsed, its tool, the gist of its arguments and how it went (a live
 * timer while it runs); expanded, the arguments as JSON and the observation the model read.
 */
export const ToolCard = memo(function ToolCard({ entry, runEnded }: { entry: ToolEntry; runEnded: boolean }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const { names: fileNames } = useConversationFiles();
  const t = useTranslations("tools");
  const formatElapsed = useFormatElapsed();
  const meta = toolMeta(entry.tool, entry.args, fileNames);
  const { Icon } = meta;
  const label = meta.labelKey ? t(`label.${meta.labelKey}`) : meta.label;
  // Arguments, file names and pages the tool read are shown as written, minus bidi controls.
  const summary = withoutBidiControls([meta.summary, meta.paging ? t("nextPage") : ""].filter(Boolean).join(" · "));
  const state: ToolCardState = entry.result ? (entry.result.ok ? "ok" : "error") : runEnded ? "cancelled" : "running";
  const elapsed = useElapsed(entry.startedAt, state === "running");
  const time = entry.result ? formatElapsed(entry.result.durationMs) : elapsed !== null ? formatElapsed(elapsed) : null;

  return (
    <div
      data-testid="tool-card"
      data-tool={entry.tool}
      data-state={state}
      className={cx(
        "overflow-hidden rounded-xl border bg-card text-sm",
        state === "error" ? "border-red-200 dark:border-red-500/30" : "border-border",
      )}
    >
      <button
        type="button"
        data-testid="tool-card-toggle"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((value) => !value)}
        className="flex w-full min-w-0 items-center gap-2.5 px-3 py-2 text-left transition-colors hover:bg-muted/60 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring"
      >
        <span className="grid size-6 shrink-0 place-items-center rounded-md bg-muted text-muted-foreground">
          <Icon aria-hidden className="size-3.5" />
        </span>
        <span className="shrink-0 font-medium">{label}</span>
        <span className="min-w-0 flex-1 truncate text-muted-foreground" title={summary}>
          {summary}
        </span>
        <StatusBadge state={state} time={time} errorKind={entry.result?.errorKind ?? null} />
        <ChevronRight
          aria-hidden
          className={cx("size-4 shrink-0 text-muted-foreground transition-transform", open && "rotate-90")}
        />
      </button>
      {open ? (
        <div id={panelId} className="space-y-3 border-t border-border/70 px-3 py-3">
          <Block title={t("arguments")} text={prettyArgs(entry.args)} />
          {entry.result?.source ? <ReadSourceLine source={entry.result.source} /> : null}
          {entry.result?.results ? (
            <SearchResults results={entry.result.results} />
          ) : entry.result ? (
            <ToolObservation result={entry.result} />
          ) : (
            <p className="text-xs text-muted-foreground">{state === "running" ? t("waiting") : t("endedBefore")}</p>
          )}
          {entry.result?.artifact ? <ArtifactPreview artifact={entry.result.artifact} /> : null}
        </div>
      ) : null}
    </div>
  );
});

/** How the call went; a failure says its kind, from the step's data. */
export function StatusBadge({
  state,
  time,
  errorKind = null,
}: {
  state: ToolCardState;
  time: string | null;
  errorKind?: ToolErrorKind | null;
}) {
  const t = useTranslations("tools");
  const icon = {
    running: <LoaderCircle aria-hidden className="size-3.5 animate-spin" />,
    ok: <CircleCheck aria-hidden className="size-3.5 text-emerald-600 dark:text-emerald-400" />,
    error: <CircleX aria-hidden className="size-3.5 text-red-600 dark:text-red-400" />,
    cancelled: <Ban aria-hidden className="size-3.5" />,
  }[state];
  const name = t(`status.${state}`);
  return (
    <span className="flex shrink-0 items-center gap-1.5 text-xs text-muted-foreground tabular-nums">
      {icon}
      <span className="sr-only">{name}</span>
      {state === "error" ? (
        <span data-testid="tool-failure" className="text-red-700 dark:text-red-300">
          {t(errorKind ? `failure.${errorKind}` : "failed")}
        </span>
      ) : null}
      {time && state !== "cancelled" ? <span>{time}</span> : null}
    </span>
  );
}

function Block({
  title,
  text,
  error = false,
  testId,
}: {
  title: string;
  text: string;
  error?: boolean;
  testId?: string;
}) {
  const t = useTranslations("tools");
  return (
    <section>
      <h4 className="mb-1 text-xs font-medium text-muted-foreground">{title}</h4>
      <pre
        data-testid={testId}
        className={cx(
          "max-h-72 overflow-auto rounded-lg px-3 py-2 font-mono text-xs leading-relaxed break-words whitespace-pre-wrap",
          error ? "bg-red-50 text-red-900 dark:bg-red-500/10 dark:text-red-200" : "bg-muted/70",
        )}
      >
        {withoutBidiControls(text) || t("empty")}
      </pre>
    </section>
  );
}

/** What the tool answered, as the model read it; a page's footer is stated from its paging data. */
export function ToolObservation({ result }: { result: ToolResult }) {
  const t = useTranslations("tools");
  const pages = result.paging?.sourcePages;
  return (
    <>
      <Block
        title={t("result")}
        text={observationBody(result.observation, result.paging)}
        error={!result.ok}
        testId="tool-observation"
      />
      {result.paging ? (
        <p data-testid="tool-more-text" className="text-xs text-muted-foreground">
          {t("moreText", { hasPages: pages ? "true" : "false", pages: pages ? sourcePagesLabel(pages) : "" })}
        </p>
      ) : null}
    </>
  );
}
