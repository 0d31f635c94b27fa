import "server-only";
import { and, asc, eq, gt } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import {
  conversations,
  type Message,
  messages,
  type Run,
  type RunMode,
  type RunStatus,
  runEvents,
  runs,
} from "./schema";

/** Runs and their events (SPEC §4): created when a chat starts, finished with the assistant message. */

/** `id` is given when the run's live slot was reserved before the run was stored. */
export function createRun(
  db: Db,
  values: { id?: string; conversationId: string; mode: RunMode; model: string },
): Run {
  const row: Run = {
    id: values.id ?? crypto.randomUUID(),
    conversationId: values.conversationId,
    status: "running",
    mode: values.mode,
    model: values.model,
    iterations: 0,
    inputTokens: 0,
    outputTokens: 0,
    elapsedMs: null,
    error: null,
    partialAnswer: null,
    startedAt: Date.now(),
    finishedAt: null,
  };
  db.insert(runs).values(row).run();
  return row;
}

export function getRun(db: Db, { id }: { id: string }): Run {
  const row = db.select().from(runs).where(eq(runs.id, id)).get();
  if (!row) throw new AppError("not_found:run", `Run ${id} not found.`);
  return row;
}

export function savePartialAnswer(db: Db, { runId, text }: { runId: string; text: string }): void {
  db.update(runs).set({ partialAnswer: text }).where(eq(runs.id, runId)).run();
}

/** Ends a run and stores its assistant message in one transaction. */
export function finishRun(
  db: Db,
  values: {
    runId: string;
    status: Exclude<RunStatus, "running">;
    iterations: number;
    inputTokens: number;
    outputTokens: number;
    error?: string | null;
    answer: string;
    /** Chosen by the caller when it announces the message before it is stored. */
    messageId?: string;
  },
): Message {
  const run = getRun(db, { id: values.runId });
  const now = Date.now();
  const message: Message = {
    id: values.messageId ?? crypto.randomUUID(),
    conversationId: run.conversationId,
    role: "assistant",
    content: values.answer,
    status: values.status === "interrupted" ? "interrupted" : values.status,
    runId: run.id,
    attachmentIds: null,
    createdAt: now,
  };
  db.transaction((tx) => {
    tx.update(runs)
      .set({
        status: values.status,
        iterations: values.iterations,
        inputTokens: values.inputTokens,
        outputTokens: values.outputTokens,
        error: values.error ?? null,
        partialAnswer: null,
        elapsedMs: now - run.startedAt,
        finishedAt: now,
      })
      .where(eq(runs.id, run.id))
      .run();
    tx.insert(messages).values(message).run();
    tx.update(conversations).set({ updatedAt: now }).where(eq(conversations.id, run.conversationId)).run();
  });
  return message;
}

export function appendRunEvent(db: Db, values: { runId: string; seq: number; type: string; data: unknown }): void {
  db.insert(runEvents)
    .values({ runId: values.runId, seq: values.seq, type: values.type, data: values.data, createdAt: Date.now() })
    .run();
}

export function listRunEvents(db: Db, { runId, after = 0 }: { runId: string; after?: number }) {
  return db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, after)))
    .orderBy(asc(runEvents.seq))
    .all();
}

export function listRuns(db: Db, { conversationId }: { conversationId: string }): Run[] {
  return db.select().from(runs).where(eq(runs.conversationId, conversationId)).orderBy(asc(runs.startedAt)).all();
}
export interface RunSummary {
  id: string;
  status: RunStatus;
  mode: RunMode;
  model: string;
  iterations: number;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  elapsedMs: number | null;
  error: string | null;
  steps: unknown[];
}

export function summarizeRun(run: Run, steps: unknown[]): RunSummary {
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
    },
    elapsedMs: run.elapsedMs,
    error: run.error,
    steps,
  };
}
/** The assistant message a run ended with, if it has ended. */
export function runMessage(db: Db, { runId }: { runId: string }): Message | undefined {
  return db
    .select()
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.role, "assistant")))
    .get();
}
