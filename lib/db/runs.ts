import "server-only";
import { and, asc, eq, gt, ne, sql } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { ResearchBriefEvent, ResearchProgress } from "@/lib/protocol/research";
import type { RunEvent, RunFailure, SentRunEvent, StoredStep, Usage } from "@/lib/protocol/run-events";
import type { Db } from "./client";
import { activeLeaf } from "./messages";
import { sameOrBothNull } from "./portable-sql";
import {
  conversations,
  instances,
  type Message,
  messages,
  type Run,
  type RunMode,
  type RunStatus,
  runEvents,
  runs,
  type StoredRunEvent,
} from "./schema";

/**
 * Runs and their events: created when a chat starts, finished with the assistant message. Over 300
 * lines on purpose: a run's whole life in the store (start, events, end with its message, summary)
 * is one table's queries, and its end's statements are shared by the async and at-exit paths.
 */

/**
 * `id` is given when the run's live slot was reserved before the run was stored; `questionId` is
 * the message the run answers, by default the end of the branch shown; `instanceId` the app
 * instance that holds it (null with a single instance).
 */
export async function createRun(
  db: Db,
  values: {
    id?: string;
    conversationId: string;
    questionId?: string | null;
    mode: RunMode;
    model: string;
    instanceId?: string | null;
  },
): Promise<Run> {
  const questionId = values.questionId !== undefined ? values.questionId : await activeLeaf(db, values.conversationId);
  const row: Run = {
    id: values.id ?? crypto.randomUUID(),
    conversationId: values.conversationId,
    status: "running",
    mode: values.mode,
    model: values.model,
    questionId,
    iterations: 0,
    inputTokens: 0,
    outputTokens: 0,
    generationMs: null,
    elapsedMs: null,
    error: null,
    fallback: false,
    partialAnswer: null,
    startedAt: Date.now(),
    finishedAt: null,
    instanceId: values.instanceId ?? null,
  };
  try {
    await db.insert(runs).values(row);
  } catch (error) {
    if (!isRunningRunConflict(error)) throw error;
    throw new AppError("conflict:run_active", "This conversation already has a running answer. Stop it or wait.", {
      cause: error,
    });
  }
  return row;
}

/**
 * The database refused a second running run in a conversation (`runs_running_conversation_idx`):
 * one another app instance runs, or one whose end is not stored yet (the database was busy).
 */
function isRunningRunConflict(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const { code, message, constraint } = current as { code?: unknown; message?: unknown; constraint?: unknown };
    if (code === "SQLITE_CONSTRAINT_UNIQUE" && String(message).includes("runs.conversation_id")) return true;
    if (code === "23505" && constraint === "runs_running_conversation_idx") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export async function getRun(db: Db, { id }: { id: string }): Promise<Run> {
  const [row] = await db.select().from(runs).where(eq(runs.id, id)).limit(1);
  if (!row) throw new AppError("not_found:run", `Run ${id} not found.`);
  return row;
}

export async function savePartialAnswer(db: Db, { runId, text }: { runId: string; text: string }): Promise<void> {
  await db.update(runs).set({ partialAnswer: text }).where(eq(runs.id, runId));
}

/** What ending a run needs to know of it; its `LiveRun` keeps it, so a shutdown at exit reads nothing. */
export type RunStart = Pick<Run, "id" | "conversationId" | "questionId" | "startedAt">;

/** How a run ended. */
export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  iterations: number;
  inputTokens: number;
  outputTokens: number;
  generationMs?: number;
  error?: string | null;
  /** The answer is the tool loop's draft: synthesis failed before any of it streamed. */
  fallback?: boolean;
  answer: string;
  /** Chosen by the caller when it announces the message before it is stored. */
  messageId?: string;
}

/** The assistant message a run ends with, stored by `runEndStatements`. */
export function endMessage(run: RunStart, values: RunEnd, now: number): Message {
  return {
    id: values.messageId ?? crypto.randomUUID(),
    conversationId: run.conversationId,
    parentId: run.questionId,
    role: "assistant",
    content: values.answer,
    status: values.status === "interrupted" ? "interrupted" : values.status,
    runId: run.id,
    attachmentIds: null,
    createdAt: now,
  };
}

/** The statements, not yet run, that end a run: its row, its assistant message, the branch shown. */
export function runEndStatements(db: Db, run: RunStart, values: RunEnd, message: Message): PromiseLike<unknown>[] {
  return [runEndStatement(db, run, values, message.createdAt), ...answerStatements(db, message)];
}

/** Ends the run's row if it is still running (another instance may have stored it interrupted). */
function runEndStatement(db: Db, run: RunStart, values: RunEnd, now: number) {
  return db
    .update(runs)
    .set({
      status: values.status,
      iterations: values.iterations,
      inputTokens: values.inputTokens,
      outputTokens: values.outputTokens,
      generationMs: values.generationMs === undefined ? null : Math.round(values.generationMs),
      error: values.error ?? null,
      fallback: values.fallback ?? false,
      partialAnswer: null,
      elapsedMs: now - run.startedAt,
      finishedAt: now,
    })
    .where(and(eq(runs.id, run.id), eq(runs.status, "running")));
}

/** The instance holding the conversation's running run (null: none, or one run by no instance). */
export async function runningRunInstance(db: Db, conversationId: string): Promise<string | null> {
  const [row] = await db
    .select({ instanceId: runs.instanceId })
    .from(runs)
    .where(and(eq(runs.conversationId, conversationId), eq(runs.status, "running")))
    .limit(1);
  return row?.instanceId ?? null;
}

/** Whether one of the account's runs goes on on another registered app instance than `instanceId`. */
export async function runsElsewhereOf(
  db: Db,
  { ownerId, instanceId }: { ownerId: string; instanceId: string | null },
): Promise<boolean> {
  const [row] = await db
    .select({ id: runs.id })
    .from(runs)
    .innerJoin(conversations, eq(conversations.id, runs.conversationId))
    .innerJoin(instances, eq(instances.id, runs.instanceId))
    .where(
      and(
        eq(conversations.userId, ownerId),
        eq(runs.status, "running"),
        instanceId === null ? undefined : ne(runs.instanceId, instanceId),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Ends a run and stores its assistant message in one transaction. A run no longer running (a
 * survivor's sweep stored it interrupted: docs/cluster.md, "Several app instances") keeps that
 * end and gets no second message: undefined then.
 */
export async function finishRun(db: Db, values: RunEnd & { runId: string }): Promise<Message | undefined> {
  const run = await getRun(db, { id: values.runId });
  const message = endMessage(run, values, Date.now());
  return db.transaction(async (tx) => {
    const ended = await runEndStatement(tx, run, values, message.createdAt).returning({ id: runs.id });
    if (ended.length === 0) return undefined;
    for (const statement of answerStatements(tx, message)) await statement;
    return message;
  });
}

/**
 * Stores a run's answer under its question. The answer ends the branch shown when its question
 * does (the branch the run was started on), and the conversation's activity moves to now.
 */
export async function storeAnswer(db: Db, message: Message): Promise<void> {
  for (const statement of answerStatements(db, message)) await statement;
}

function answerStatements(db: Db, message: Message): PromiseLike<unknown>[] {
  const leaf = sql`CASE WHEN ${sameOrBothNull(conversations.activeLeafId, message.parentId)} THEN ${message.id} ELSE ${conversations.activeLeafId} END`;
  return [
    db.insert(messages).values(message),
    db
      .update(conversations)
      .set({ updatedAt: message.createdAt, activeLeafId: leaf })
      .where(eq(conversations.id, message.conversationId)),
  ];
}

export async function appendRunEvent(db: Db, values: { runId: string; seq: number; event: RunEvent }): Promise<void> {
  await runEventStatement(db, values);
}

/** The statement, not yet run, that stores one event of a run. */
export function runEventStatement(
  db: Db,
  { runId, seq, event }: { runId: string; seq: number; event: RunEvent },
): PromiseLike<unknown> {
  return db.insert(runEvents).values({ runId, seq, type: event.event, data: event.data, createdAt: Date.now() });
}

/** A stored event as it was sent: only `LiveRun.emit` writes them, so name and data belong together. */
export function sentRunEvent(row: Pick<StoredRunEvent, "type" | "data" | "seq">): SentRunEvent {
  return { event: row.type, data: row.data, id: String(row.seq) } as SentRunEvent;
}

/** The run's stored events after `after`, in order. */
export async function listRunEvents(
  db: Db,
  { runId, after = 0 }: { runId: string; after?: number },
): Promise<SentRunEvent[]> {
  const rows = await db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, after)))
    .orderBy(asc(runEvents.seq));
  return rows.map(sentRunEvent);
}

/** What a stored run shows again: its steps, compactions and DAG plans with their progress, as they were sent. */
export function storedStep(event: SentRunEvent): StoredStep | null {
  if (event.event === "step") return event.data;
  if (event.event === "compact") return { type: "compact", seq: Number(event.id), ...event.data };
  if (event.event === "plan") return { type: "plan", seq: Number(event.id), ...event.data };
  if (event.event === "step_progress") return { type: "step_progress", seq: Number(event.id), ...event.data };
  return null;
}

export function listRuns(db: Db, { conversationId }: { conversationId: string }): Promise<Run[]> {
  return db.select().from(runs).where(eq(runs.conversationId, conversationId)).orderBy(asc(runs.startedAt));
}
/** A run as the API shows it with its assistant message: how it went, why it failed, what it did. */
export interface RunSummary {
  id: string;
  status: RunStatus;
  mode: RunMode;
  model: string;
  iterations: number;
  usage: Usage;
  elapsedMs: number | null;
  /** Why the run failed, was stopped from outside or cut off; the answer never contains it. */
  error: string | null;
  /** The run's `error` event as it was sent (code, details), so the browser words it in the user's language. */
  failure: RunFailure | null;
  /** The answer is the tool loop's draft, shown as such: synthesis failed (`error`) before any of it streamed. */
  fallback: boolean;
  steps: StoredStep[];
  /** Research mode: the brief the run proposed (or its questions), so a reload shows the outline card again. */
  researchBrief: ResearchBriefEvent | null;
  /** Research mode: the run's last progress, so a reload shows where it got to. */
  research: ResearchProgress | null;
}

/** The last `error` event among a run's stored events: why it failed, as it was sent. */
export function storedFailure(events: SentRunEvent[]): RunFailure | null {
  const failure = events.findLast((event) => event.event === "error");
  return failure?.event === "error" ? failure.data : null;
}

/** The data of the last stored event of this name, if any. */
function lastData<K extends "research_brief" | "research">(events: SentRunEvent[], name: K) {
  const event = events.findLast((candidate) => candidate.event === name);
  return event ? (event.data as Extract<RunEvent, { event: K }>["data"]) : null;
}

export function summarizeRun(run: Run, events: SentRunEvent[]): RunSummary {
  return {
    id: run.id,
    status: run.status,
    mode: run.mode,
    model: run.model,
    iterations: run.iterations,
    usage: {
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      totalTokens: run.inputTokens + run.outputTokens,
      ...(run.generationMs === null ? {} : { generationMs: run.generationMs }),
    },
    elapsedMs: run.elapsedMs,
    error: run.error,
    failure: storedFailure(events),
    fallback: run.fallback,
    steps: events.flatMap((event) => storedStep(event) ?? []),
    researchBrief: lastData(events, "research_brief"),
    research: lastData(events, "research"),
  };
}
/** The assistant message a run ended with, if it has ended. */
export async function runMessage(db: Db, { runId }: { runId: string }): Promise<Message | undefined> {
  const [row] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.role, "assistant")))
    .limit(1);
  return row;
}
