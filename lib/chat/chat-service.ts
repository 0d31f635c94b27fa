import "server-only";
import type { Db } from "@/lib/db/client";
import {
  appendRunEvent,
  createRun,
  DEFAULT_TITLE,
  finishRun,
  getConversation,
  insertMessage,
  listMessages,
  savePartialAnswer,
  titleFromMessage,
  updateConversation,
} from "@/lib/db/queries";
import type { Message, RunStatus } from "@/lib/db/schema";
import { AppError, isAbortError } from "@/lib/errors";
import { getLLM, resolveModelName } from "@/lib/llm/registry";
import type { ChatMessage, LLM, Usage } from "@/lib/llm/types";
import { emptyUsage } from "@/lib/llm/types";
import { detectLanguage, prompt } from "@/lib/prompts";
import { LiveRun, LiveRuns } from "./live-run";

const PARTIAL_SAVE_MS = 1000;

const globalForRuns = globalThis as unknown as { __liveRuns?: LiveRuns };

export function getLiveRuns(): LiveRuns {
  globalForRuns.__liveRuns ??= new LiveRuns();
  return globalForRuns.__liveRuns;
}

export interface ChatInput {
  conversationId: string;
  message: string;
  model?: string;
}

/** The model's view of a conversation: system prompt, earlier final answers, the new question. */
export function buildHistory(previous: Message[], question: string, now = new Date()): ChatMessage[] {
  const language = detectLanguage(question);
  const history: ChatMessage[] = [
    { role: "system", content: prompt(language, "system", { date: now.toISOString().slice(0, 10) }) },
  ];
  for (const message of previous) {
    if (message.role === "user") history.push({ role: "user", content: message.content });
    else if (message.status !== "error" && message.content.trim()) {
      history.push({ role: "assistant", content: message.content });
    }
  }
  history.push({ role: "user", content: question });
  return history;
}

/**
 * Starts a run: checks the model first (unknown model → 400, Ollama down → 502, nothing stored),
 * then stores the user's message and the run, and answers in the background. The returned live
 * run outlives the HTTP request that started it (SPEC §12).
 */
export async function startChat(db: Db, input: ChatInput, liveRuns = getLiveRuns()): Promise<LiveRun> {
  const conversation = getConversation(db, { id: input.conversationId });
  const ensureIdle = () => {
    if (liveRuns.forConversation(conversation.id)) {
      throw new AppError("conflict:run_active", "This conversation already has a running answer. Stop it or wait.");
    }
  };
  ensureIdle();
  const model = await resolveModelName(input.model, conversation.model);
  const llm = await getLLM(model);
  ensureIdle(); // the awaits above leave room for a second request

  const previous = listMessages(db, { conversationId: conversation.id });
  const userMessage = insertMessage(db, { conversationId: conversation.id, role: "user", content: input.message });
  if (conversation.title === DEFAULT_TITLE || conversation.model !== model) {
    updateConversation(db, {
      id: conversation.id,
      title: conversation.title === DEFAULT_TITLE ? titleFromMessage(input.message) : undefined,
      model,
    });
  }
  const run = createRun(db, { conversationId: conversation.id, mode: "plain", model });
  const live = new LiveRun(run.id, conversation.id, (event) =>
    appendRunEvent(db, { runId: run.id, seq: event.id, type: event.event, data: event.data }),
  );
  liveRuns.add(live);
  live.emit("run", {
    runId: run.id,
    conversationId: conversation.id,
    userMessageId: userMessage.id,
    model,
    mode: "plain",
  });

  void answer({ db, live, llm, history: buildHistory(previous, input.message) }).finally(() => {
    liveRuns.remove(live);
    live.end();
  });
  return live;
}

async function answer({ db, live, llm, history }: { db: Db; live: LiveRun; llm: LLM; history: ChatMessage[] }) {
  const startedAt = Date.now();
  let text = "";
  let usage: Usage = emptyUsage();
  let status: Exclude<RunStatus, "running"> = "complete";
  let failure: AppError | undefined;
  let lastSave = startedAt;

  live.emit("answer", { status: "start" });
  try {
    for await (const part of llm.streamChat(history, { signal: live.signal })) {
      if (part.type === "text") {
        text += part.text;
        live.emit("answer", { status: "delta", content: part.text }, { store: false });
        if (Date.now() - lastSave > PARTIAL_SAVE_MS) {
          savePartialAnswer(db, { runId: live.runId, text });
          lastSave = Date.now();
        }
      } else if (part.type === "finish") {
        usage = part.usage;
      }
    }
  } catch (error) {
    if (live.signal.aborted || isAbortError(error)) status = "stopped";
    else {
      status = "error";
      failure =
        error instanceof AppError
          ? error
          : new AppError("internal", error instanceof Error ? error.message : String(error));
      if (!(error instanceof AppError)) console.error("[chat] run failed", error);
    }
  }
  if (live.signal.aborted) status = "stopped";
  live.emit("answer", { status: "done" });
  if (failure) live.emit("error", { code: failure.code, message: failure.message, retryable: failure.retryable });

  const content = failure ? [text.trim(), `**Error:** ${failure.message}`].filter(Boolean).join("\n\n") : text;
  const message = finishRun(db, {
    runId: live.runId,
    status,
    iterations: 1,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    error: failure?.message,
    answer: content,
  });
  live.emit("done", {
    messageId: message.id,
    iterations: 1,
    usage,
    elapsedMs: Date.now() - startedAt,
    ...(status === "stopped" ? { stopped: true } : {}),
  });
}

/** Stops the conversation's running answer; 409 when nothing runs. */
export function stopChat(conversationId: string, liveRuns = getLiveRuns()): { runId: string } {
  const live = liveRuns.forConversation(conversationId);
  if (!live) throw new AppError("conflict:no_active_run", "Nothing is running in this conversation.");
  live.controller.abort();
  return { runId: live.runId };
}
