import { CornerDownRight, Info, ListFilter } from "lucide-react";
import { useFormatter, useTranslations } from "use-intl";
import type { Compaction, Interrupt, NoticeAbout, StructuredRecord } from "@/lib/protocol/run-events";

const CUT_KEYS = {
  question: "cutQuestion",
  follow_up: "cutFollowUp",
  tool_result: "cutToolResult",
  research: "cutResearch",
} as const;

/** A structured call's request cut to fit: whose request it was. */
const REQUEST_CUT_KEYS = {
  planner: "cutRequestPlanner",
  analyzer: "cutRequestAnalyzer",
  tool_selection: "cutRequestToolSelection",
  brief: "cutRequestBrief",
} as const;

const DAG_FALLBACK_KEYS = {
  empty: "dagFallbackEmpty",
  single: "dagFallbackSingle",
  cycle: "dagFallbackCycle",
} as const;

/** Which quota left a research run's sources out of the library. */
const NOT_KEPT_KEYS = {
  conversation_files: "sourcesNotKeptConversationFiles",
  project_files: "sourcesNotKeptProjectFiles",
  user_storage: "sourcesNotKeptUserStorage",
} as const;

/** The engine's notice in the reader's language, from its data (messages/*.json, `tools.notice`). */
function useNoticeSentence(): (about: NoticeAbout) => string {
  const t = useTranslations("tools.notice");
  const format = useFormatter();
  return (about) => {
    switch (about.code) {
      case "cut":
        return about.what === "request"
          ? t(REQUEST_CUT_KEYS[about.call], { kept: about.kept, total: about.total })
          : t(CUT_KEYS[about.what], { kept: about.kept, total: about.total, tool: about.tool ?? "" });
      case "tool_budget":
        return about.budget === "context"
          ? t("budgetContext", { limit: about.limit, chars: about.chars })
          : t("budgetRounds", { rounds: about.rounds });
      case "research_budget":
        return about.budget === "sources"
          ? t("researchBudgetSources", { max: about.max })
          : t("researchBudgetTime", { minutes: about.minutes });
      case "iteration_limit":
        return t("iterationLimit", { iterations: about.iterations });
      case "dag_fallback":
        return t(DAG_FALLBACK_KEYS[about.problem.kind], {
          steps: about.problem.kind === "cycle" ? format.list(about.problem.steps) : "",
        });
      case "mcp_unavailable":
        return t("mcpUnavailable", { server: about.server });
      case "memories":
        return t("memoriesIncluded", { included: about.included, total: about.total });
      case "sources_not_kept":
        return t(NOT_KEPT_KEYS[about.quota], { kept: about.kept, notKept: about.notKept });
    }
  };
}

/**
 * A small note inside a run, e.g. "the tool budget is used". The engine's notices come with their
 * data (`about`) and are worded in the reader's language; others show the run's own sentence.
 */
export function RunNotice({ text, about }: { text: string; about?: NoticeAbout }) {
  const sentence = useNoticeSentence();
  return (
    <p data-testid="run-notice" className="flex items-start gap-2 text-xs text-muted-foreground">
      <Info aria-hidden className="mt-px size-3.5 shrink-0" />
      <span>{about ? sentence(about) : text}</span>
    </p>
  );
}

/** Which tools a preliminary call chose when there were many. */
/** How a structured call got its object (its level and model calls), so a degraded one can be seen. */
export function StructuredVia({ record }: { record: StructuredRecord }) {
  const t = useTranslations("tools");
  return (
    <span data-testid="structured-via" className="text-muted-foreground">
      {t("structuredVia", { level: record.level, calls: record.calls })}
    </span>
  );
}

export function ToolSelectionNote({
  selected,
  total,
  fellBack,
  structured,
}: {
  selected: string[];
  total: number;
  /** The selection call failed: every tool is offered, and the note says so. */
  fellBack?: boolean;
  structured?: StructuredRecord;
}) {
  const t = useTranslations("tools");
  const format = useFormatter();
  return (
    <p data-testid="tool-selection" className="flex items-start gap-2 text-xs text-muted-foreground">
      <ListFilter aria-hidden className="mt-px size-3.5 shrink-0" />
      <span>
        {fellBack
          ? t("selectionFallback", { total })
          : t("selection", {
              selected: selected.length,
              total,
              hasNames: selected.length > 0 ? "true" : "false",
              names: format.list(selected),
            })}
        {structured ? (
          <>
            {" · "}
            <StructuredVia record={structured} />
          </>
        ) : null}
      </span>
    </p>
  );
}

/** Where the context guard summarised the older part of the history. */
export function CompactDivider({ event }: { event: Compaction }) {
  const t = useTranslations("tools");
  return (
    <div data-testid="compact-divider" className="flex items-center gap-3 py-1 text-xs text-muted-foreground">
      <span aria-hidden className="h-px flex-1 bg-border" />
      <span className="shrink-0">
        {t("compacted", {
          from: event.originalMessages,
          to: event.keptMessages,
          before: Math.round(event.tokensBefore),
          after: Math.round(event.tokensAfter),
        })}
      </span>
      <span aria-hidden className="h-px flex-1 bg-border" />
    </div>
  );
}

/** Interrupts the user sent while the agent worked, at the point where the agent took them. */
export function TakenInterrupts({ interrupts }: { interrupts: Interrupt[] }) {
  const t = useTranslations("tools");
  return (
    <div className="flex flex-col items-end gap-1.5 py-1">
      <span className="flex items-center gap-1 text-xs text-muted-foreground">
        <CornerDownRight aria-hidden className="size-3.5" />
        {t("sentWhileWorking")}
      </span>
      {interrupts.map((interrupt) => (
        <p
          key={interrupt.id}
          data-testid="taken-interrupt"
          className="max-w-[85%] rounded-2xl bg-bubble px-3.5 py-2 text-sm leading-relaxed break-words whitespace-pre-wrap sm:max-w-[75%]"
        >
          {interrupt.text}
        </p>
      ))}
    </div>
  );
}
