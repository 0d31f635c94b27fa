/**
 * The run protocol: every event a run sends over SSE and the shape of its data, defined once as a
 * zod schema (the pieces in `./run-steps.ts`), the types inferred from it. The server emits through
 * these types (`LiveRun.emit`), stores them and replays them; the browser decodes the wire with
 * `decodeRunEvent`, which checks each event against its schema, and folds the same types; an
 * imported conversation's events are checked against the same schemas (`lib/export/event-schema.ts`).
 * A field changed here is a compile error on both sides. Framework-free on purpose: no server,
 * database or React imports.
 */

import type { Usage } from "@/lib/llm/types";
import { citationReportSchema } from "@/lib/protocol/citations";
import { serverErrorCodes } from "@/lib/protocol/error-codes";
import { researchBriefEventSchema, researchProgressSchema, researchStartSchema } from "./research";
import {
  type ApprovalDecision,
  compactionSchema,
  interruptSchema,
  planSchema,
  runModeSchema,
  runStepSchema,
  stepProgressSchema,
  usageSchema,
} from "./run-steps";
import { z } from "./zod";

export * from "./run-steps";
export type { Usage };

/** `POST /api/conversations/:id/approvals/:approvalId` → 200: the decision the waiting call got. */
export interface ApprovalDecided {
  approvalId: string;
  runId: string;
  decision: ApprovalDecision;
}

/** `POST /api/conversations/:id/interrupt` → 202: the interrupt's id, and how many wait for the run. */
export interface InterruptAccepted {
  interruptId: string;
  runId: string;
  pending: number;
}

const count = z.number().int().min(0);
const text = z.string();

/** `run`: the run exists; the question is stored as `userMessageId`. */
const runStartedSchema = z.object({
  runId: text,
  conversationId: text,
  userMessageId: text,
  model: text,
  mode: runModeSchema,
});

/** `answer`: the streamed answer. A second `start` in one run discards the text so far. */
const answerPartSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("start") }),
  z.object({ status: z.literal("delta"), content: text }),
  z.object({ status: z.literal("done") }),
]);

/**
 * `thinking`: a piece of the model's thinking as it is written, not stored; the whole of it follows
 * as a `thinking` step of the same iteration, which replaces it. Synthesis thinks in iteration 0.
 */
const thinkingDeltaSchema = z.object({
  iteration: count,
  /** DAG mode: the plan step whose agent thinks. */
  stepId: text.optional(),
  delta: text,
});

/** `title`: the conversation's new title, made after `done` (the stream's last event then). */
const titleMadeSchema = z.object({ title: text });

/**
 * `error`: why the run failed; the run still ends with `done`. `code` and `details` as in the API's
 * errors: the browser words it in the user's language from them (`lib/client/error-text.ts`).
 */
const runFailureSchema = z.object({
  code: z.enum(serverErrorCodes),
  message: text,
  retryable: z.boolean(),
  details: z.unknown().optional(),
});

/** `done`: always the run's last event. */
const runDoneSchema = z.object({
  /** The stored assistant message (stored later when the database is busy, under this id). */
  messageId: text,
  iterations: count,
  usage: usageSchema,
  elapsedMs: z.number(),
  stopped: z.boolean().optional(),
  /** The answer failed after it had begun to stream: what streamed is kept, cut; the `error` before says why. */
  interrupted: z.boolean().optional(),
  /** Synthesis failed before any of it streamed: the answer is the tool loop's draft; the `error` before says why. */
  fallback: z.boolean().optional(),
  /** The tool loop stopped at MAX_ITERATIONS: the answer is written from what it had found (an `iteration_limit` notice says so too). */
  iterationLimit: z.boolean().optional(),
  /** Interrupts the run never took: held by the server, the next turn (a completed run) or unsent messages. */
  pendingInterrupts: z.array(interruptSchema).optional(),
  /** On a conversation's first turn: a `title` event follows, once the model has made it. */
  titlePending: z.boolean().optional(),
});

/** Every event of a run, by name: the schema of its data. */
export const runEventSchemas = {
  run: runStartedSchema,
  step: runStepSchema,
  plan: planSchema,
  step_progress: stepProgressSchema,
  compact: compactionSchema,
  answer: answerPartSchema,
  thinking: thinkingDeltaSchema,
  error: runFailureSchema,
  /** What checking the answer's citations found (docs/research.md, "Checking citations"): before `done`. */
  citations: citationReportSchema,
  done: runDoneSchema,
  title: titleMadeSchema,
  /** Research mode (docs/research.md, "Research mode"): the brief proposed, or the questions asked. */
  research_brief: researchBriefEventSchema,
  /** Research mode: the run's phase, its sections' states and its budgets. */
  research: researchProgressSchema,
  /** Research mode: the brief the run researches, once at the start of gathering (a resume reads its sections). */
  research_start: researchStartSchema,
} as const;

export type RunStarted = z.infer<typeof runStartedSchema>;
export type AnswerPart = z.infer<typeof answerPartSchema>;
export type ThinkingDelta = z.infer<typeof thinkingDeltaSchema>;
export type TitleMade = z.infer<typeof titleMadeSchema>;
export type RunFailure = z.infer<typeof runFailureSchema>;
export type RunDone = z.infer<typeof runDoneSchema>;

/** Every event of a run, by name. */
export type RunEventMap = { [K in keyof typeof runEventSchemas]: z.infer<(typeof runEventSchemas)[K]> };

export type RunEventName = keyof RunEventMap;
export type RunEventData<K extends RunEventName> = RunEventMap[K];

/** One event as it travels: its name, its data and its id (`N` stored, `N.k` an answer delta). */
export type RunEvent = { [K in RunEventName]: { event: K; data: RunEventMap[K]; id?: string } }[RunEventName];

/** An event as the server sends and replays it: always with the id a client resumes after. */
export type SentRunEvent = RunEvent & { id: string };

export function isRunEventName(name: string): name is RunEventName {
  return Object.hasOwn(runEventSchemas, name);
}

/** A frame of the wire, decoded: the protocol's event, or why it is not one (a sentence for the log). */
export type DecodedRunEvent = { ok: true; event: RunEvent } | { ok: false; problem: string };

/** The first few of a failed check's issues, as `path: message`. */
function issuesText(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join("; ")} (and ${more} more)` : shown.join("; ");
}

/**
 * The one place where a run event from the wire is trusted: its name must be one of the protocol's,
 * its data JSON that its schema accepts. Anything else is not an event, and `problem` says why.
 */
export function decodeRunEvent(message: { event?: string; data: string; id?: string | null }): DecodedRunEvent {
  const name = message.event ?? "message";
  if (!isRunEventName(name)) return { ok: false, problem: `"${name}" is not an event of the run protocol` };
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    return { ok: false, problem: `the "${name}" event's data is not JSON` };
  }
  const parsed = runEventSchemas[name].safeParse(json);
  if (!parsed.success) {
    return { ok: false, problem: `the "${name}" event does not match the run protocol: ${issuesText(parsed.error)}` };
  }
  const event = { event: name, data: parsed.data } as RunEvent;
  return { ok: true, event: message.id ? { ...event, id: message.id } : event };
}
