import "server-only";
import { decideToolCalling, type RequestedToolCalling } from "@/lib/agent/tool-calling-mode";
import type { AgentMode } from "@/lib/agent/types";
import type { ChatSettings } from "@/lib/chat-settings";
import { type Config, getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { releaseInterrupts, takeInterrupt, unsentInterrupts } from "@/lib/db/interrupts";
import { isInterrupt } from "@/lib/db/message-tree";
import {
  DEFAULT_TITLE,
  getConversation,
  insertMessage,
  listFileSummaries,
  messageTree,
  type OwnerId,
  saveConversationSummary,
  setActiveLeaf,
  titleFromMessage,
  updateConversation,
} from "@/lib/db/queries";
import { appendRunEvent, createRun } from "@/lib/db/runs";
import type { Conversation, Message, StoredFile } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { findFile } from "@/lib/files/file-store";
import { resizeForVision } from "@/lib/files/image-resize";
import { getLLM } from "@/lib/llm/registry";
import type { LLM } from "@/lib/llm/types";
import { detectLanguage, prompt } from "@/lib/prompts";
import type { Interrupt } from "@/lib/protocol/run-events";
import { roleModel } from "@/lib/settings";
import { createRunToolRegistry } from "@/lib/tools/server-tools";
import { runAgentTurn } from "./agent-run";
import { previousTurns, systemPrompt } from "./history";
import { LiveRun, LiveRuns } from "./live-run";
import { chooseTurnModel } from "./turn-model";

const globalForRuns = globalThis as unknown as { __liveRuns?: LiveRuns };

export function getLiveRuns(): LiveRuns {
  globalForRuns.__liveRuns ??= new LiveRuns();
  return globalForRuns.__liveRuns;
}

/** How a turn runs: the ReAct agent (its tool calling chosen or forced), or DAG mode. */
export type ChatMode = RequestedToolCalling | "dag";

/**
 * Where a turn goes in the conversation's tree (docs/api.md, `POST /api/chat`): after an answer
 * (by default the end of the branch shown), as a new version of a question (edit), or as a new
 * version of an answer to the same question (regenerate: no new question).
 */
export type TurnPlace =
  | { message: string; parentId?: string; editOf?: undefined; regenerate?: undefined }
  | { message: string; editOf: string; parentId?: undefined; regenerate?: undefined }
  | { regenerate: string; message?: undefined; parentId?: undefined; editOf?: undefined };

export type ChatInput = TurnPlace & {
  /** Who asks: set by the route from the session, never from the request body. */
  ownerId: OwnerId;
  conversationId: string;
  model?: string;
  mode?: ChatMode;
  attachmentIds?: string[];
  /** Unsent interrupts (follow-ups of an earlier run) this message sends: no longer held once it starts. */
  interruptIds?: string[];
};

/** Image attachments prepared for a vision model, as base64. */
async function visionImages(files: StoredFile[], maxPixels: number): Promise<string[]> {
  const images = files.filter((file) => file.mime.startsWith("image/"));
  return Promise.all(
    images.map(async (file) => (await resizeForVision(file.bytes, { maxPixels })).bytes.toString("base64")),
  );
}

function toolCallingFor(requested: RequestedToolCalling | undefined, llm: LLM): AgentMode {
  const decided = decideToolCalling(requested, llm.abilities);
  if ("refusal" in decided) throw new AppError("bad_request:mode", `Model '${llm.model}' ${decided.refusal}`);
  return decided.mode;
}

/** Takes the run's slot for its conversation, its user and the server, or says why it cannot. */
function reserveSlot(liveRuns: LiveRuns, live: LiveRun, config: Config): void {
  const refusal = liveRuns.reserve(live, { perUser: config.MAX_RUNS_PER_USER, total: config.MAX_RUNS_TOTAL });
  if (refusal === "conversation") {
    throw new AppError("conflict:run_active", "This conversation already has a running answer. Stop it or wait.");
  }
  if (refusal === "per_user") {
    throw new AppError(
      "rate_limited:runs_per_user",
      `You already have ${config.MAX_RUNS_PER_USER} answers running. Wait for one to finish, or stop one, then retry.`,
      { retryable: true, details: { retryAfterSeconds: 10 } },
    );
  }
  if (refusal === "total") {
    throw new AppError("rate_limited:runs_total", "The server is busy with other answers. Retry in a few seconds.", {
      retryable: true,
      details: { retryAfterSeconds: 10 },
    });
  }
}

/** The turn's question and what it follows: a new question under `parentId`, or a stored one answered again. */
type TurnQuestion =
  | { stored: null; parentId: string | null; text: string; attachmentIds: string[] }
  | { stored: Message; parentId: string | null; text: string; attachmentIds: string[] };

/** Checks the ids of `place` against the conversation's messages; 400 with what is wrong. */
function questionOf(db: Db, conversation: Conversation, place: TurnPlace, attachmentIds: string[]): TurnQuestion {
  const tree = messageTree(db, { conversationId: conversation.id });
  if (place.regenerate !== undefined) {
    const answer = tree.get(place.regenerate);
    const question = answer?.parentId ? tree.get(answer.parentId) : undefined;
    if (answer?.role !== "assistant" || !question) {
      throw new AppError(
        "bad_request:regenerate",
        `Message ${place.regenerate} is not an answer in this conversation.`,
      );
    }
    return {
      stored: question,
      parentId: question.parentId,
      text: question.content,
      attachmentIds: question.attachmentIds ?? [],
    };
  }
  if (place.editOf !== undefined) {
    const edited = tree.get(place.editOf);
    if (edited?.role !== "user" || isInterrupt(edited)) {
      throw new AppError("bad_request:edit_of", `Message ${place.editOf} is not a question in this conversation.`);
    }
    return { stored: null, parentId: edited.parentId, text: place.message, attachmentIds };
  }
  if (place.parentId !== undefined && tree.get(place.parentId)?.role !== "assistant") {
    throw new AppError("bad_request:parent", `Message ${place.parentId} is not an answer in this conversation.`);
  }
  return { stored: null, parentId: place.parentId ?? conversation.activeLeafId, text: place.message, attachmentIds };
}

/** Everything a turn needs that can be refused, found before anything is stored. */
interface PreparedTurn {
  /** The conversation's model; `llm` answers (the vision model, for images the conversation's cannot see). */
  question: TurnQuestion;
  model: string;
  llm: LLM;
  loopLlm: LLM;
  /** The loop's model without the conversation's settings: the title keeps its own. */
  titleLlm: LLM;
  /** The conversation's own settings, as the turn started: every model call of the turn uses them. */
  settings: ChatSettings;
  mode: AgentMode | "dag";
  attachments: StoredFile[];
  images: string[];
}

async function prepareTurn(
  db: Db,
  input: ChatInput,
  conversation: Conversation,
  config: Config,
): Promise<PreparedTurn> {
  const question = questionOf(db, conversation, input, input.attachmentIds ?? []);
  const { settings } = conversation;
  unsentInterrupts(db, { conversationId: conversation.id, ids: input.interruptIds ?? [] });
  const attachments = question.attachmentIds.map((fileId) => {
    const file = findFile(db, { conversationId: conversation.id, fileId });
    if (!file) throw new AppError("bad_request:attachment", `Attachment ${fileId} is not a file of this conversation.`);
    return file;
  });
  const { conversationModel: model, llm } = await chooseTurnModel(db, {
    requested: input.model,
    conversationModel: conversation.model,
    withImages: attachments.some((file) => file.mime.startsWith("image/")),
    settings,
  });
  // The tool loop may use the fast model; the answer is written by the turn's model.
  const fast = roleModel(db, "fast");
  const loopLlm = fast && fast !== llm.model ? await getLLM(fast, settings, "fast") : llm;
  // The title is written without the chat's settings, with the keep-alive of the model's role.
  const titleRole = loopLlm !== llm ? "fast" : llm.model !== model ? "vision" : "general";
  const titleLlm = await getLLM(loopLlm.model, {}, titleRole);
  // DAG mode: each step's model calls tools its own way (native or JSON by its abilities).
  const mode = input.mode === "dag" ? "dag" : toolCallingFor(input.mode, loopLlm);
  const images = llm.abilities.vision ? await visionImages(attachments, config.MAX_IMAGE_PIXELS) : [];
  return { question, model, llm, loopLlm, titleLlm, settings, mode, attachments, images };
}

function newLiveRun(db: Db, conversationId: string, ownerId: OwnerId, config: Config): LiveRun {
  const runId = crypto.randomUUID();
  return new LiveRun({
    runId,
    conversationId,
    ownerId,
    persist: (event, seq) => appendRunEvent(db, { runId, seq, event }),
    interruptLimits: { maxCount: config.MAX_INTERRUPTS_PER_RUN, maxBytes: config.MAX_INTERRUPT_BYTES_PER_RUN },
  });
}

/**
 * Starts a run. Its slot is reserved before anything is awaited (one run per conversation, the
 * per-user and total caps hold under parallel requests); then every input is checked (unknown model
 * → 400, Ollama down → 502, a bad attachment → 400) before anything is stored, and a refused or
 * failed start gives the slot back. The user's message and the run are stored in one transaction
 * and the agent runs in the background; the returned live run outlives the HTTP request.
 */
export async function startChat(db: Db, input: ChatInput, liveRuns = getLiveRuns()): Promise<LiveRun> {
  const found = getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
  const config = getConfig();
  const live = newLiveRun(db, found.id, input.ownerId, config);
  reserveSlot(liveRuns, live, config);
  try {
    const turn = await prepareTurn(db, input, found, config);
    beginTurn(db, { live, input, turn, config, liveRuns });
  } catch (error) {
    liveRuns.release(live);
    throw error;
  }
  return live;
}

/**
 * Interrupts a completed run never took become the next turn at once, on the server, with no
 * client needed: one user message after the run's answer, their texts in the order they were sent,
 * answered by the same model. If that turn cannot start, they stay held, shown as unsent messages.
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
  const text = pending.map((interrupt) => interrupt.text).join("\n\n");
  const next: ChatInput = {
    ownerId: input.ownerId,
    conversationId: input.conversationId,
    message: text,
    parentId: answerId,
    interruptIds: pending.map((interrupt) => interrupt.id),
  };
  const question: TurnQuestion = { stored: null, parentId: answerId, text, attachmentIds: [] };
  try {
    reserveSlot(liveRuns, live, config);
  } catch (error) {
    console.warn("[chat] follow-ups kept unsent:", error instanceof Error ? error.message : error);
    return;
  }
  try {
    // The next turn runs as the conversation remembers "Plan first", whatever mode the ended run had.
    const { planFirst } = getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
    const mode = planFirst ? "dag" : turn.mode;
    next.mode = planFirst ? "dag" : undefined;
    beginTurn(db, {
      live,
      input: next,
      turn: { ...turn, mode, question, attachments: [], images: [] },
      config,
      liveRuns,
    });
  } catch (error) {
    liveRuns.release(live);
    console.warn("[chat] follow-ups kept unsent:", error instanceof Error ? error.message : error);
  }
}

/**
 * Stores the turn (its question, the run) in one transaction and runs the agent in the background.
 * Synchronous: a run that ends hands its follow-ups to the next turn before its `done` goes out.
 */
function beginTurn(
  db: Db,
  {
    live,
    input,
    turn,
    config,
    liveRuns,
  }: { live: LiveRun; input: ChatInput; turn: PreparedTurn; config: Config; liveRuns: LiveRuns },
): void {
  const { runId } = live;
  const { question } = turn;
  // Read again after the awaits: the conversation may have been renamed, or removed with its account.
  const conversation = getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
  const autoTitle = conversation.title === DEFAULT_TITLE ? titleFromMessage(question.text) : null;
  const previous = messageTree(db, { conversationId: conversation.id }).path(question.parentId);
  const questionId = db.transaction(() => {
    const userMessageId =
      question.stored?.id ??
      insertMessage(db, {
        conversationId: conversation.id,
        parentId: question.parentId,
        role: "user",
        content: question.text,
        attachmentIds: turn.attachments.map((file) => file.id),
      }).id;
    releaseInterrupts(db, { ids: input.interruptIds ?? [] });
    // The branch shown ends at the question until its answer is stored.
    setActiveLeaf(db, { id: conversation.id, messageId: userMessageId });
    const planFirst = input.mode === undefined ? conversation.planFirst : input.mode === "dag";
    // A turn brings an archived conversation back: it is in use again.
    if (
      conversation.title === DEFAULT_TITLE ||
      conversation.model !== turn.model ||
      conversation.planFirst !== planFirst ||
      conversation.archived
    ) {
      updateConversation(db, {
        id: conversation.id,
        ownerId: input.ownerId,
        title: autoTitle ?? undefined,
        model: turn.model,
        planFirst,
        archived: false,
      });
    }
    createRun(db, {
      id: runId,
      conversationId: conversation.id,
      questionId: userMessageId,
      mode: turn.mode,
      model: turn.llm.model,
    });
    live.markStarted();
    live.emit("run", {
      runId,
      conversationId: conversation.id,
      userMessageId,
      model: turn.llm.model,
      mode: turn.mode,
    });
    return userMessageId;
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
    // The conversation's tool groups; an MCP server that cannot connect is named in a notice.
    registry: async (signal) => {
      const { disabledToolGroups } = conversation;
      const { registry, unavailable } = await createRunToolRegistry(db, { disabledToolGroups, signal });
      for (const server of unavailable) {
        live.emitStep(
          { type: "notice", iteration: 0, text: prompt(language, "mcp_unavailable", { server }) },
          Date.now(),
        );
      }
      return registry;
    },
    config,
    language,
    toolCalling: turn.mode,
    // Each step's model comes from its role, read when the step starts; none set → the conversation's.
    resolveRoleModel: async (hint) => {
      const name = hint ? roleModel(db, hint) : undefined;
      return hint && name && name !== turn.model ? getLLM(name, turn.settings, hint) : turn.llm;
    },
    input: {
      system: systemPrompt(language, listFileSummaries(db, { conversationId: conversation.id })),
      instructions: turn.settings.instructions,
      history,
      question: questionText,
      images: turn.images,
    },
    // Only a title the user has not changed meanwhile is replaced; a run ended from outside (its
    // account removed) has no conversation left to title.
    onTitle: autoTitle
      ? (title) => {
          if (live.isEnded) return null;
          const current = getConversation(db, { id: conversation.id, ownerId: input.ownerId });
          if (current.title !== autoTitle) return null;
          updateConversation(db, { id: conversation.id, ownerId: input.ownerId, title });
          return title;
        }
      : undefined,
    // The conversation takes its next turn at `done`, while the title is still being made; follow-ups
    // a completed run never took are that turn.
    onEnd: ({ status, pending }) => {
      liveRuns.remove(live);
      if (status === "complete" && pending.length > 0) {
        continueWithInterrupts(db, pending, { answerId: live.messageId, input, turn, config, liveRuns });
      }
    },
    onInterrupt: (interrupt) =>
      takeInterrupt(db, { interrupt, conversationId: conversation.id, runId, parentId: questionId }),
    onCompact: (event) => {
      // Keep the summary for later turns when it replaced earlier turns of the conversation.
      const covered = event.replaced.map((message) => ids.get(message)).filter((id): id is string => Boolean(id));
      const through = covered.at(-1);
      if (event.summary && through) {
        saveConversationSummary(db, { id: conversation.id, summary: event.summary, throughMessageId: through });
      }
    },
  })
    .catch((error) => console.error("[chat] run crashed", error))
    .finally(() => {
      liveRuns.remove(live);
      live.end();
    });
}

/**
 * Stops the conversation's running answer; 409 when nothing runs. A start still being prepared
 * is stopped too: it stores the question and ends at once as stopped.
 */
export function stopChat(conversationId: string, liveRuns = getLiveRuns()): { runId: string } {
  const live = liveRuns.forConversation(conversationId);
  if (!live) throw new AppError("conflict:no_active_run", "Nothing is running in this conversation.");
  live.controller.abort();
  return { runId: live.runId };
}
