/**
 * What the UI shows of one run, folded from its SSE events (SPEC §12): the timeline of tool calls,
 * thinking, injected messages and notes above the answer, the answer text, and how the run ended.
 * The same fold serves a live stream, a reconnect replay and the stored steps of a finished run.
 */
import type { Artifact, CompactEvent, DoneEvent, ErrorEvent, RunEvent, StepEvent, Usage } from "./types";

export interface ToolResult {
  ok: boolean;
  observation: string;
  durationMs: number;
  artifact: Artifact | null;
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
    }
  | { kind: "thinking"; key: string; text: string }
  | { kind: "interrupt"; key: string; messages: string[] }
  | { kind: "notice"; key: string; text: string }
  | { kind: "tool_selection"; key: string; selected: string[]; total: number }
  | ({ kind: "compact"; key: string } & CompactEvent);

export type RunStatus = "streaming" | "complete" | "stopped" | "error";

export interface RunView {
  runId: string | null;
  userMessageId: string | null;
  model: string | null;
  mode: string | null;
  timeline: TimelineEntry[];
  answer: string;
  /** The tool loop is over: the answer is being written. */
  answerStarted: boolean;
  /** The answer's first words have arrived (and were not discarded since). */
  answering: boolean;
  status: RunStatus;
  error: string | null;
  usage: Usage | null;
  iterations: number | null;
  elapsedMs: number | null;
  /** The answer is the tool loop's own, because synthesis failed. */
  fallback: boolean;
  pendingInterrupts: string[];
  /** The id of the last SSE event folded in: where a reconnect resumes (`?after=`). */
  lastEventId: string | null;
}

export interface RunMessage {
  event: string;
  data: unknown;
  id?: string | null;
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
    error: null,
    usage: null,
    iterations: null,
    elapsedMs: null,
    fallback: false,
    pendingInterrupts: [],
    lastEventId: null,
    ...init,
  };
}

/** Adds a step to the timeline. A result completes its call's card, matched by call id. */
export function applyStep(timeline: TimelineEntry[], step: StepEvent, now: number | null): TimelineEntry[] {
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
        },
      ];
    }
    case "tool_result": {
      const result: ToolResult = {
        ok: step.ok,
        observation: step.observation,
        durationMs: step.durationMs,
        artifact: step.artifact ?? null,
      };
      const index = timeline.findIndex((entry) => entry.kind === "tool" && entry.callId === step.callId);
      if (index === -1) {
        const { callId, tool, iteration } = step;
        return [
          ...timeline,
          { kind: "tool", key: `tool:${callId}`, callId, tool, args: null, iteration, startedAt: null, result },
        ];
      }
      return timeline.map((entry, i) => (i === index && entry.kind === "tool" ? { ...entry, result } : entry));
    }
    case "thinking":
      return withEntry(timeline, { kind: "thinking", key: `thinking:${step.seq}`, text: step.text });
    case "interrupt":
      return withEntry(timeline, { kind: "interrupt", key: `interrupt:${step.seq}`, messages: step.messages });
    case "notice":
      return withEntry(timeline, { kind: "notice", key: `notice:${step.seq}`, text: step.text });
    case "tool_selection":
      return withEntry(timeline, {
        kind: "tool_selection",
        key: `tool_selection:${step.seq}`,
        selected: step.selected,
        total: step.total,
      });
    default:
      return timeline;
  }
}

function withEntry(timeline: TimelineEntry[], entry: TimelineEntry): TimelineEntry[] {
  return timeline.some((existing) => existing.key === entry.key) ? timeline : [...timeline, entry];
}

/** Folds one SSE event into the view. Unknown events leave it as it was. */
export function applyRunEvent(view: RunView, message: RunMessage, now: number | null = Date.now()): RunView {
  const next = message.id ? { ...view, lastEventId: message.id } : view;
  switch (message.event) {
    case "run": {
      const run = message.data as RunEvent;
      return { ...next, runId: run.runId, userMessageId: run.userMessageId, model: run.model, mode: run.mode };
    }
    case "step":
      return { ...next, timeline: applyStep(view.timeline, message.data as StepEvent, now) };
    case "compact": {
      const key = `compact:${message.id ?? view.timeline.length}`;
      return {
        ...next,
        timeline: withEntry(view.timeline, { kind: "compact", key, ...(message.data as CompactEvent) }),
      };
    }
    case "answer": {
      const answer = message.data as { status: string; content?: string };
      // A second start in one run discards the text so far: the server falls back to another answer.
      if (answer.status === "start") return { ...next, answer: "", answerStarted: true, answering: false };
      if (answer.status === "delta" && answer.content) {
        return { ...next, answer: view.answer + answer.content, answering: true };
      }
      return next;
    }
    case "error":
      return { ...next, status: "error", error: (message.data as ErrorEvent).message };
    case "done": {
      const done = message.data as DoneEvent;
      return {
        ...next,
        status: view.status === "error" ? "error" : done.stopped ? "stopped" : "complete",
        usage: done.usage,
        iterations: done.iterations,
        elapsedMs: done.elapsedMs,
        fallback: done.fallback === true,
        pendingInterrupts: done.pendingInterrupts ?? [],
      };
    }
    default:
      return next;
  }
}

/** The timeline of a finished run, from the steps stored with it. */
export function timelineFromSteps(steps: StepEvent[]): TimelineEntry[] {
  return steps.reduce<TimelineEntry[]>((timeline, step) => applyStep(timeline, step, null), []);
}
