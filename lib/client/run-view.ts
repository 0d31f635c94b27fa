/**
 * What the UI shows of one run, folded from its events (the run protocol of
 * `lib/protocol/run-events.ts`): the timeline of tool calls, thinking, taken interrupts and notes
 * above the answer, the answer text, and how the run ended. The same fold serves a live stream, a
 * reconnect replay and the stored steps of a finished run. Over 300 lines on purpose: it is one fold
 * with a case per event kind, and a fold split by event would be read in several places.
 */
import type { RunMode } from "@/lib/db/schema";
import type { CitationReport } from "@/lib/protocol/citations";
import type { ResearchBriefEvent, ResearchProgress } from "@/lib/protocol/research";
import type {
  ApprovalRequest,
  ApprovalResolution,
  Artifact,
  Compaction,
  Interrupt,
  MemoryNote,
  NoticeAbout,
  Paging,
  RunDone,
  RunEvent,
  SearchHit,
  Source,
  StoredStep,
  StructuredRecord,
  Usage,
  Verdict,
} from "@/lib/protocol/run-events";
import type { ToolErrorKind } from "@/lib/protocol/tool-failures";
import type { ErrorInfo } from "./error-text";
import { applyPlan, applyStepProgress, type PlanStepView } from "./plan-view";

export interface ToolResult {
  ok: boolean;
  /** Why the call failed, when it did. */
  errorKind: ToolErrorKind | null;
  observation: string;
  /** More text follows this page: the footer of the observation, as data, and where it begins. */
  paging: Paging | null;
  durationMs: number;
  artifact: Artifact | null;
  /** The page or file read, numbered among the run's sources. */
  source: Source | null;
  /** web_search's results, as data. */
  results: SearchHit[] | null;
  /** remember: the memory saved or proposed (the answer's memory chip). */
  memory?: MemoryNote;
}

export type TimelineEntry =
  | {
      kind: "tool";
      key: string;
      callId: string;
      tool: string;
      args: unknown;
      iteration: number;
      /** When this page saw the call start (ms since epoch), for the live timer; null when not live. */
      startedAt: number | null;
      result: ToolResult | null;
      /** DAG mode: the plan step whose agent made the call (its card shows inside the step). */
      stepId?: string;
    }
  | {
      kind: "thinking";
      key: string;
      text: string;
      /** Still being written (from `thinking` deltas); the stored step replaces it. */
      live: boolean;
      /** How long the model thought, once it is done; null for an older run that did not say. */
      durationMs: number | null;
      iteration: number;
      /** DAG mode: the plan step whose model thought. */
      stepId?: string;
    }
  | {
      kind: "approval";
      key: string;
      /** What the call asks to do: the approval card. */
      request: ApprovalRequest;
      /** How it ended, and when (epoch ms); null while it waits (or when its run ended first). */
      resolution: (ApprovalResolution & { at: number }) | null;
    }
  | { kind: "interrupt"; key: string; interrupts: Interrupt[] }
  | { kind: "notice"; key: string; text: string; about?: NoticeAbout }
  | {
      kind: "tool_selection";
      key: string;
      selected: string[];
      total: number;
      fellBack?: true;
      structured?: StructuredRecord;
    }
  | ({ kind: "compact"; key: string } & Compaction)
  | {
      kind: "plan";
      key: string;
      round: number;
      steps: PlanStepView[];
      verdict?: Verdict;
      structured?: StructuredRecord;
    };

/** How the UI shows a run: still streaming, or how it ended (the stored run's status is another thing). */
export type RunViewStatus = "streaming" | "complete" | "stopped" | "error" | "interrupted";

export interface RunView {
  runId: string | null;
  userMessageId: string | null;
  model: string | null;
  mode: RunMode | null;
  timeline: TimelineEntry[];
  answer: string;
  /** The tool loop is over: the answer is being written. */
  answerStarted: boolean;
  /** The answer's first words have arrived (and were not discarded since). */
  answering: boolean;
  status: RunViewStatus;
  /**
   * Why the run failed or was cut off: its `error` event, live or stored (code and details, worded
   * in the user's language by `describeError`; `bad_request:unknown_model`: the model is gone).
   */
  failure: ErrorInfo | null;
  usage: Usage | null;
  iterations: number | null;
  elapsedMs: number | null;
  /** The answer is the tool loop's draft: synthesis failed (`error` says why) before any of it streamed. */
  fallback: boolean;
  /** The tool loop stopped at MAX_ITERATIONS (`done`, or a stored run's `iteration_limit` notice). */
  iterationLimit: boolean;
  /** What checking the answer's citations found (its `citations` event, or the stored report): its chips' colours. */
  citations: CitationReport | null;
  /** The id of the last SSE event folded in: where a reconnect resumes (`?after=`). */
  lastEventId: string | null;
  /** Research mode: the brief the run proposed (or its clarifying questions), and its last progress. */
  researchBrief: ResearchBriefEvent | null;
  research: ResearchProgress | null;
}

export function emptyRunView(init: Partial<RunView> = {}): RunView {
  return {
    runId: null,
    userMessageId: null,
    model: null,
    mode: null,
    timeline: [],
    answer: "",
    answerStarted: false,
    answering: false,
    status: "streaming",
    failure: null,
    usage: null,
    iterations: null,
    elapsedMs: null,
    fallback: false,
    iterationLimit: false,
    citations: null,
    lastEventId: null,
    researchBrief: null,
    research: null,
    ...init,
  };
}

/** The pages and files the run read, once each, by number: what the answer's `[n]` cite. */
export function runSources(timeline: TimelineEntry[]): Source[] {
  const byNumber = new Map<number, Source>();
  for (const entry of timeline) {
    if (entry.kind === "tool" && entry.result?.source) byNumber.set(entry.result.source.n, entry.result.source);
  }
  return [...byNumber.values()].sort((a, b) => a.n - b.n);
}

/** Adds a step to the timeline. A result completes its call's card, matched by call id. */
export function applyStep(timeline: TimelineEntry[], step: StoredStep, now: number | null): TimelineEntry[] {
  switch (step.type) {
    case "tool_call": {
      const key = `tool:${step.callId}`;
      if (timeline.some((entry) => entry.key === key)) return timeline;
      return [
        ...timeline,
        {
          kind: "tool",
          key,
          callId: step.callId,
          tool: step.tool,
          args: step.args,
          iteration: step.iteration,
          startedAt: now,
          result: null,
          ...(step.stepId ? { stepId: step.stepId } : {}),
        },
      ];
    }
    case "tool_result": {
      const result: ToolResult = {
        ok: step.ok,
        errorKind: step.errorKind ?? null,
        observation: step.observation,
        paging: step.paging ?? null,
        durationMs: step.durationMs,
        artifact: step.artifact ?? null,
        source: step.source ?? null,
        results: step.results ?? null,
        ...(step.memory ? { memory: step.memory } : {}),
      };
      const index = timeline.findIndex((entry) => entry.kind === "tool" && entry.callId === step.callId);
      if (index === -1) {
        const { callId, tool, iteration } = step;
        return [
          ...timeline,
          {
            kind: "tool",
            key: `tool:${callId}`,
            callId,
            tool,
            args: null,
            iteration,
            startedAt: null,
            result,
            ...(step.stepId ? { stepId: step.stepId } : {}),
          },
        ];
      }
      return timeline.map((entry, i) => (i === index && entry.kind === "tool" ? { ...entry, result } : entry));
    }
    case "thinking": {
      const entry: TimelineEntry = {
        kind: "thinking",
        key: `thinking:${step.seq}`,
        text: step.text,
        live: false,
        durationMs: step.durationMs ?? null,
        iteration: step.iteration,
        ...(step.stepId ? { stepId: step.stepId } : {}),
      };
      // The whole thinking replaces the one that grew live, in its place.
      const liveIndex = timeline.findIndex(
        (e) => e.kind === "thinking" && e.live && e.iteration === step.iteration && e.stepId === step.stepId,
      );
      if (liveIndex !== -1) return timeline.map((e, i) => (i === liveIndex ? entry : e));
      return withEntry(timeline, entry);
    }
    case "approval_request": {
      const { type: _type, iteration: _iteration, seq: _seq, at: _at, stepId: _stepId, ...request } = step;
      return withEntry(timeline, { kind: "approval", key: `approval:${step.approvalId}`, request, resolution: null });
    }
    case "approval_decision": {
      const { type: _type, iteration: _iteration, seq: _seq, stepId: _stepId, ...resolution } = step;
      return timeline.map((entry) =>
        entry.kind === "approval" && entry.request.approvalId === step.approvalId ? { ...entry, resolution } : entry,
      );
    }
    case "interrupt":
      return withEntry(timeline, { kind: "interrupt", key: `interrupt:${step.seq}`, interrupts: step.interrupts });
    case "notice":
      return withEntry(timeline, {
        kind: "notice",
        key: `notice:${step.seq}`,
        text: step.text,
        ...(step.about ? { about: step.about } : {}),
      });
    case "tool_selection":
      return withEntry(timeline, {
        kind: "tool_selection",
        key: `tool_selection:${step.seq}`,
        selected: step.selected,
        total: step.total,
        ...(step.fellBack ? { fellBack: true as const } : {}),
        ...(step.structured ? { structured: step.structured } : {}),
      });
    case "compact": {
      const { type: _type, seq, ...compaction } = step;
      return withEntry(timeline, { kind: "compact", key: `compact:${seq}`, ...compaction });
    }
    case "plan":
      return applyPlan(timeline, step);
    case "step_progress":
      return applyStepProgress(timeline, step);
  }
}

function withEntry(timeline: TimelineEntry[], entry: TimelineEntry): TimelineEntry[] {
  return timeline.some((existing) => existing.key === entry.key) ? timeline : [...timeline, entry];
}

/** A piece of thinking as it is written: it grows the live block of its iteration, or opens one. */
export function applyThinkingDelta(
  timeline: TimelineEntry[],
  { iteration, delta, stepId }: { iteration: number; delta: string; stepId?: string },
): TimelineEntry[] {
  const index = timeline.findIndex(
    (e) => e.kind === "thinking" && e.live && e.iteration === iteration && e.stepId === stepId,
  );
  if (index === -1) {
    const key = `thinking:live:${stepId ?? ""}:${iteration}`;
    const entry: TimelineEntry = { kind: "thinking", key, text: delta, live: true, durationMs: null, iteration };
    return [...timeline, stepId ? { ...entry, stepId } : entry];
  }
  return timeline.map((e, i) => (i === index && e.kind === "thinking" ? { ...e, text: e.text + delta } : e));
}

/**
 * How the run ended. An answer cut by a failure is `interrupted` (what streamed stands); a draft in
 * place of a failed synthesis is `complete` (shown as a draft, with the error).
 */
function endStatus(status: RunViewStatus, done: RunDone): RunViewStatus {
  if (done.stopped) return "stopped";
  if (done.interrupted) return "interrupted";
  if (done.fallback) return "complete";
  return status === "error" ? "error" : "complete";
}

/** Folds one event of the run into the view. */
export function applyRunEvent(view: RunView, message: RunEvent, now: number | null = Date.now()): RunView {
  const next = message.id ? { ...view, lastEventId: message.id } : view;
  switch (message.event) {
    case "run": {
      const run = message.data;
      return { ...next, runId: run.runId, userMessageId: run.userMessageId, model: run.model, mode: run.mode };
    }
    case "step":
      return { ...next, timeline: applyStep(view.timeline, message.data, now) };
    case "compact": {
      const seq = message.id ? Number(message.id) : view.timeline.length;
      return { ...next, timeline: applyStep(view.timeline, { type: "compact", seq, ...message.data }, now) };
    }
    case "answer": {
      const answer = message.data;
      // A second start in one run discards the text so far: the server falls back to another answer.
      if (answer.status === "start") return { ...next, answer: "", answerStarted: true, answering: false };
      if (answer.status === "delta" && answer.content) {
        return { ...next, answer: view.answer + answer.content, answering: true };
      }
      return next;
    }
    case "thinking":
      return { ...next, timeline: applyThinkingDelta(view.timeline, message.data) };
    case "error":
      return { ...next, status: "error", failure: message.data };
    case "done": {
      const done = message.data;
      return {
        ...next,
        status: endStatus(view.status, done),
        usage: done.usage,
        iterations: done.iterations,
        elapsedMs: done.elapsedMs,
        fallback: done.fallback === true,
        iterationLimit: done.iterationLimit === true || reachedIterationLimit(view.timeline),
      };
    }
    case "plan":
      return { ...next, timeline: applyPlan(view.timeline, message.data) };
    case "step_progress":
      return { ...next, timeline: applyStepProgress(view.timeline, message.data) };
    // The title goes to the conversation list, not to the run.
    case "title":
      return next;
    // A later report (the answer checked again) replaces the earlier one.
    case "citations":
      return { ...next, citations: message.data };
    case "research_brief":
      return { ...next, researchBrief: message.data };
    case "research":
      return { ...next, research: message.data };
    // The brief researched is for a resume on the server; the progress card shows the sections.
    case "research_start":
      return next;
  }
}

/** The trail says the tool loop stopped at MAX_ITERATIONS: how a stored run, which keeps no `done`, knows it. */
export function reachedIterationLimit(timeline: TimelineEntry[]): boolean {
  return timeline.some((entry) => entry.kind === "notice" && entry.about?.code === "iteration_limit");
}

/** The timeline of a finished run, from the steps stored with it. */
export function timelineFromSteps(steps: StoredStep[]): TimelineEntry[] {
  return steps.reduce<TimelineEntry[]>((timeline, step) => applyStep(timeline, step, null), []);
}
