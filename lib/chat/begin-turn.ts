import "server-only";
import type { Db } from "@/lib/db/client";
import { listFileSummaries } from "@/lib/db/conversation-detail";
import {
  getConversation,
  holdConversation,
  type OwnerId,
  setActiveLeaf,
  updateConversation,
} from "@/lib/db/conversations";
import { releaseInterrupts } from "@/lib/db/interrupts";
import { insertMessage, messageTree } from "@/lib/db/messages";
import { copyRunSources, storeRunEvent } from "@/lib/db/run-sources";
import { createRun, savePartialAnswer } from "@/lib/db/runs";
import { holdAccount } from "@/lib/db/users";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { withMemories } from "@/lib/memory/turn-memory";
import { detectLanguage } from "@/lib/prompts";
import type { Interrupt } from "@/lib/protocol/run-events";
import { DEFAULT_TITLE, titleFromMessage } from "@/lib/text/conversation-title";
import { runAgentTurn } from "./agent-run";
import { followUpTurn } from "./follow-up-turn";
import { previousTurns, systemPrompt } from "./history";
import { LiveRun, type LiveRuns } from "./live-run";
import type { ChatInput, PreparedTurn } from "./prepare-turn";
import { runHooks } from "./run-hooks";

/** How often a run's write that failed is tried again: a few of SQLite's own waits for a lock, growing. */
function busyRetries(config: Config): { attempts: number; delayMs: number } {
  return { attempts: 3, delayMs: config.DB_BUSY_TIMEOUT_MS };
}

/**
 * Running a prepared turn: its slot among the live runs, its question and run stored in one
 * transaction, the agent in the background, and the follow-up turn the server starts when a
 * completed run leaves interrupts it never took.
 */

/** Takes the run's slot for its conversation, its user and the server, or says why it cannot. */
export function reserveSlot(liveRuns: LiveRuns, live: LiveRun, config: Config): void {
  const refusal = liveRuns.reserve(live, { perUser: config.MAX_RUNS_PER_USER, total: config.MAX_RUNS_TOTAL });
  if (refusal === "conversation") {
    throw new AppError("conflict:run_active", "This conversation already has a running answer. Stop it or wait.");
  }
  if (refusal === "per_user") {
    throw new AppError(
      "rate_limited:runs_per_user",
      `You already have ${config.MAX_RUNS_PER_USER} answers running. Wait for one to finish, or stop one, then retry.`,
      { retryable: true, details: { retryAfterSeconds: 10, max: config.MAX_RUNS_PER_USER } },
    );
  }
  if (refusal === "total") {
    throw new AppError("rate_limited:runs_total", "The server is busy with other answers. Retry in a few seconds.", {
      retryable: true,
      details: { retryAfterSeconds: 10 },
    });
  }
}

export function newLiveRun(db: Db, conversationId: string, ownerId: OwnerId, config: Config): LiveRun {
  const runId = crypto.randomUUID();
  return new LiveRun({
    runId,
    conversationId,
    ownerId,
    // A step that read a source stores the part read with it (docs/research.md, "The source store").
    persist: (event, seq) => storeRunEvent(db, { runId, seq, event }),
    savePartialAnswer: (text) => savePartialAnswer(db, { runId, text }),
    interruptLimits: { maxCount: config.MAX_INTERRUPTS_PER_RUN, maxBytes: config.MAX_INTERRUPT_BYTES_PER_RUN },
    // A lock held for a few of SQLite's own waits in a row fails the write (and the run).
    busyRetries: busyRetries(config),
  });
}

/**
 * Stores the turn (its question, the run) in one transaction and runs the agent in the background.
 * A run that ends hands its follow-ups to the next turn (its slot reserved) before its `done` goes out.
 */
export async function beginTurn(
  db: Db,
  {
    live,
    input,
    turn,
    config,
    liveRuns,
  }: { live: LiveRun; input: ChatInput; turn: PreparedTurn; config: Config; liveRuns: LiveRuns },
): Promise<void> {
  const { runId } = live;
  const { question } = turn;
  // Read again after the awaits: the conversation may have been renamed, or removed with its account.
  const conversation = await getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
  const autoTitle = conversation.title === DEFAULT_TITLE ? titleFromMessage(question.text) : null;
  const previous = (await messageTree(db, { conversationId: conversation.id })).path(question.parentId);
  const files = await listFileSummaries(db, { conversationId: conversation.id });
  // This process's earlier run whose end was not stored would hold the conversation in the database.
  await liveRuns.unended.endFor(db, conversation.id);
  const run = await db.transaction(async (tx) => {
    // A deletion of the conversation (or its account) made since it was read went first: 404, nothing stored.
    await holdConversation(tx, { id: conversation.id, ownerId: input.ownerId });
    // A start during its account's removal stores nothing (`removeAccount`): begun here, or on any
    // instance (the mark in the database, which waits for this transaction when it comes second).
    if (liveRuns.isBeingRemoved(input.ownerId)) {
      throw new AppError("not_found:account", "This account is being removed.");
    }
    if (input.ownerId !== null) await holdAccount(tx, input.ownerId);
    const userMessageId =
      question.stored?.id ??
      (
        await insertMessage(tx, {
          conversationId: conversation.id,
          parentId: question.parentId,
          role: "user",
          content: question.text,
          attachmentIds: turn.attachments.map((file) => file.id),
        })
      ).id;
    await releaseInterrupts(tx, { ids: input.interruptIds ?? [] });
    // The branch shown ends at the question until its answer is stored.
    await setActiveLeaf(tx, { id: conversation.id, messageId: userMessageId });
    // "Plan first" is remembered from the modes that choose it or not; a research turn leaves it as it is.
    const planFirst =
      input.mode === undefined || input.mode === "research" ? conversation.planFirst : input.mode === "dag";
    // A turn brings an archived conversation back: it is in use again.
    if (
      conversation.title === DEFAULT_TITLE ||
      conversation.model !== turn.model ||
      conversation.planFirst !== planFirst ||
      conversation.archived
    ) {
      await updateConversation(tx, {
        id: conversation.id,
        ownerId: input.ownerId,
        title: autoTitle ?? undefined,
        model: turn.model,
        planFirst,
        archived: false,
      });
    }
    const created = await createRun(tx, {
      id: runId,
      conversationId: conversation.id,
      questionId: userMessageId,
      mode: turn.mode,
      model: turn.llm.model,
      instanceId: liveRuns.instanceId,
    });
    // A resumed research run starts from the interrupted run's sources, under the same numbers.
    if (turn.resumes) await copyRunSources(tx, { from: turn.resumes, to: runId });
    return created;
  });
  const questionId = run.questionId!;
  live.markStarted(run);
  live.emit("run", {
    runId,
    conversationId: conversation.id,
    userMessageId: questionId,
    model: turn.llm.model,
    mode: turn.mode,
  });

  const questionText = turn.question.text;
  const language = detectLanguage(questionText);
  const { history, ids } = previousTurns(previous, conversation, language);
  void runAgentTurn({
    db,
    live,
    llm: turn.loopLlm,
    synthesisLlm: turn.llm,
    titleLlm: turn.titleLlm,
    config,
    language,
    toolCalling: turn.mode,
    research: turn.research,
    input: {
      system: systemPrompt(language, files),
      // The project's and the chat's instructions, then the owner's memories: every model call of the turn gets them.
      instructions: withMemories(turn.settings.instructions, turn.memory, language),
      history,
      question: questionText,
      images: turn.images,
    },
    ...runHooks(db, {
      live,
      liveRuns,
      conversation,
      input,
      turn,
      config,
      language,
      questionId,
      autoTitle,
      ids,
      busyRetries: busyRetries(config),
      continueWith: (pending) =>
        continueWithInterrupts(db, pending, { answerId: live.messageId, input, turn, config, liveRuns }),
    }),
  })
    .catch((error) => console.error("[chat] run crashed", error))
    .finally(() => {
      liveRuns.remove(live);
      live.end();
    });
}

/**
 * Interrupts a completed run never took become the next turn at once (`followUpTurn`), on the
 * server, with no client needed. If that turn cannot start, they stay held, shown as unsent messages.
 */
function continueWithInterrupts(
  db: Db,
  pending: Interrupt[],
  {
    answerId,
    input,
    turn,
    config,
    liveRuns,
  }: { answerId: string; input: ChatInput; turn: PreparedTurn; config: Config; liveRuns: LiveRuns },
): void {
  const live = newLiveRun(db, input.conversationId, input.ownerId, config);
  try {
    reserveSlot(liveRuns, live, config);
  } catch (error) {
    console.warn("[chat] follow-ups kept unsent:", error instanceof Error ? error.message : error);
    return;
  }
  followUpTurn(db, pending, { answerId, input, turn })
    .then((next) => beginTurn(db, { live, ...next, config, liveRuns }))
    .catch((error: unknown) => {
      liveRuns.release(live);
      console.warn("[chat] follow-ups kept unsent:", error instanceof Error ? error.message : error);
    });
}
