import { CircleAlert, CircleStop, Unplug } from "lucide-react";
import { memo, useMemo } from "react";
import { useTranslations } from "use-intl";
import { useErrorText } from "@/components/ui/use-error-text";
import { type AssistantItem, resumableResearch } from "./chat-items";
import { MemoryChips } from "./memory-chips";
import { MessageFooter } from "./message-footer";
import type { ThreadActions } from "./message-list";
import { RegenerateButton } from "./regenerate-button";
import { OutlineCard, type OutlineStart } from "./research/outline-card";
import { ProgressCard } from "./research/progress-card";
import { QuestionsCard } from "./research/questions-card";
import { RunTimeline } from "./run/run-timeline";
import { AnswerWithSources } from "./sources/answer-sources";
import type { FindSupport } from "./sources/citation-popover";
import { useCitationCheck } from "./sources/use-citation-check";
import { VersionSwitcher } from "./version-switcher";

const STATUS_LABELS = {
  stopped: { text: "stopped", Icon: CircleStop, tone: "text-muted-foreground bg-muted" },
  error: { text: "error", Icon: CircleAlert, tone: "text-red-700 bg-red-50 dark:text-red-300 dark:bg-red-500/10" },
  interrupted: {
    text: "interrupted",
    Icon: Unplug,
    tone: "text-amber-800 bg-amber-50 dark:text-amber-300 dark:bg-amber-500/10",
  },
} as const;

/**
 * One answer: what the agent did (tool cards, thinking…), then the Markdown answer (streaming or
 * final) or a waiting state, its status and error, and the footer.
 */
export const AssistantMessage = memo(function AssistantMessage({
  item,
  actions = null,
  latest = false,
}: {
  item: AssistantItem;
  /** A stored answer can be regenerated (a new version) and shows its versions. */
  actions?: ThreadActions | null;
  /** The thread's newest answer: its research outline can be edited and started. */
  latest?: boolean;
}) {
  const t = useTranslations("answer");
  const tOutline = useTranslations("research.outline");
  const errorText = useErrorText();
  const { run, stored } = item;
  const onRegenerate = stored && actions ? () => actions.regenerate(stored.id) : undefined;
  const resumeResearch = actions?.resumeResearch;
  const onResume = stored && resumeResearch && resumableResearch(item) ? () => resumeResearch(stored.id) : undefined;
  const blocked = actions?.blocked ?? false;
  const streaming = item.status === "streaming";
  const label = item.status in STATUS_LABELS ? STATUS_LABELS[item.status as keyof typeof STATUS_LABELS] : null;
  const toolRunning = run.timeline.some((entry) => entry.kind === "tool" && entry.result === null);
  // A research brief's answer is the brief in Markdown: the card shows it instead.
  const brief = run.researchBrief;
  const startResearch = actions?.startResearch;
  const outlineStart: OutlineStart | null =
    !latest || !startResearch
      ? null
      : streaming || !stored
        ? { waiting: tOutline("notYetStored") }
        : blocked
          ? { waiting: tOutline("blocked") }
          : { onStart: (edited) => startResearch(stored.id, edited) };
  // A stored answer's citations can be checked by the verifier; its verdicts replace the finder's.
  const citations = useCitationCheck(stored && !streaming ? stored.id : null, run.citations);
  const answerId = stored && !streaming ? stored.id : null;
  const startFindSupport = actions?.findSupport;
  const findSupport = useMemo<FindSupport | null>(
    () =>
      answerId && startFindSupport ? { blocked, start: (question) => startFindSupport(answerId, question) } : null,
    [answerId, startFindSupport, blocked],
  );

  return (
    <article
      data-testid="message-assistant"
      data-status={item.status}
      aria-busy={streaming}
      aria-label={t("label")}
      className="group/answer min-w-0"
    >
      {/* Once the brief is made, its card says the rest: the progress of making it is over. */}
      {run.research && !(run.research.phase === "brief" && brief) ? (
        <ProgressCard progress={run.research} live={streaming} />
      ) : null}
      <RunTimeline timeline={run.timeline} runEnded={!streaming} elapsedMs={run.elapsedMs} />
      {brief?.kind === "brief" ? (
        <OutlineCard brief={brief.brief} start={outlineStart} />
      ) : brief?.kind === "questions" ? (
        <QuestionsCard questions={brief.questions} />
      ) : streaming && !run.answering ? (
        toolRunning && !item.reconnecting ? null : (
          <Waiting item={item} />
        )
      ) : run.answer ? (
        <div data-testid="answer-text">
          {run.fallback && !streaming ? (
            <p
              data-testid="draft-note"
              className="mb-2 rounded-xl border border-amber-200 bg-amber-50/70 px-3.5 py-2.5 text-sm text-amber-900 dark:border-amber-500/20 dark:bg-amber-500/10 dark:text-amber-200"
            >
              {t("draftNote", { reason: run.failure ? errorText(run.failure) : "" })}
            </p>
          ) : null}
          <AnswerWithSources
            answer={run.answer}
            streaming={streaming}
            timeline={run.timeline}
            report={citations.report}
            onCheck={citations.onCheck}
            findSupport={findSupport}
          />
        </div>
      ) : null}
      {streaming && run.answering && item.reconnecting ? <Waiting item={item} /> : null}
      {label ? (
        <div className="mt-2 flex flex-col items-start gap-2">
          <span
            data-testid="message-status"
            className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${label.tone}`}
          >
            <label.Icon aria-hidden className="size-3.5" />
            {t(`status.${label.text}`)}
          </span>
          {run.failure ? (
            <p
              role="alert"
              data-testid="message-error"
              className="w-full rounded-xl border border-red-200 bg-red-50/70 px-3.5 py-2.5 text-sm text-red-800 dark:border-red-500/20 dark:bg-red-500/10 dark:text-red-200"
            >
              {item.status === "interrupted"
                ? t("interruptedReason", { reason: errorText(run.failure) })
                : errorText(run.failure)}
            </p>
          ) : null}
        </div>
      ) : null}
      {(item.status === "interrupted" || run.fallback) && onRegenerate ? (
        <div className="mt-2 flex flex-wrap items-center gap-2">
          {onResume ? <RegenerateButton onRegenerate={onResume} blocked={blocked} resume /> : null}
          <RegenerateButton onRegenerate={onRegenerate} blocked={blocked} retry />
        </div>
      ) : null}
      {/* Shown while the answer streams too: a memory is stored when its step arrives. */}
      <MemoryChips timeline={run.timeline} runId={run.runId} messageId={stored?.id ?? null} />
      {streaming ? null : (
        <MessageFooter
          content={run.answer}
          model={run.model}
          mode={run.mode}
          iterations={run.iterations}
          iterationLimit={run.iterationLimit}
          toolsRan={run.timeline.some((entry) => entry.kind === "tool")}
          usage={run.usage}
          elapsedMs={run.elapsedMs}
          versions={stored && actions ? <VersionSwitcher stored={stored} actions={actions} /> : null}
          messageId={stored?.id ?? null}
          onRegenerate={onRegenerate}
          blocked={blocked}
        />
      )}
    </article>
  );
});

function Waiting({ item }: { item: AssistantItem }) {
  const t = useTranslations("answer");
  const { run } = item;
  const text = item.reconnecting
    ? t("reconnecting")
    : run.answerStarted && run.timeline.length > 0
      ? t("writing")
      : t("thinking");
  return (
    <div role="status" className="flex items-center gap-2 py-1 text-sm text-muted-foreground">
      <span aria-hidden className="flex gap-1">
        <span className="size-1.5 animate-bounce rounded-full bg-current [animation-delay:-0.3s]" />
        <span className="size-1.5 animate-bounce rounded-full bg-current [animation-delay:-0.15s]" />
        <span className="size-1.5 animate-bounce rounded-full bg-current" />
      </span>
      {text}
    </div>
  );
}
