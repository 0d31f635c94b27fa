import "server-only";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import {
  DEFAULT_TITLE,
  getConversation,
  insertMessage,
  listFileSummaries,
  listMessages,
  type OwnerId,
  removeLastTurn,
  saveConversationSummary,
  titleFromMessage,
  updateConversation,
} from "@/lib/db/queries";
import { appendRunEvent, createRun } from "@/lib/db/runs";
import type { StoredFile } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { findFile } from "@/lib/files/file-store";
import { resizeForVision } from "@/lib/files/image-resize";
import { getLLM, resolveModelName } from "@/lib/llm/registry";
import type { LLM } from "@/lib/llm/types";
import { detectLanguage } from "@/lib/prompts";
import { roleModel } from "@/lib/settings";
import { createServerToolRegistry } from "@/lib/tools/server-tools";
import { runAgentTurn } from "./agent-run";
import { previousTurns, systemPrompt } from "./history";
import { LiveRun, LiveRuns } from "./live-run";

const globalForRuns = globalThis as unknown as { __liveRuns?: LiveRuns };

export function getLiveRuns(): LiveRuns {
  globalForRuns.__liveRuns ??= new LiveRuns();
  return globalForRuns.__liveRuns;
}

export type ChatMode = "auto" | "native" | "json";

export interface ChatInput {
  /** Who asks: set by the route from the session, never from the request body. */
  ownerId: OwnerId;
  conversationId: string;
  message: string;
  model?: string;
  mode?: ChatMode;
  /** Regenerate / edit-and-resend: the last turn is replaced by this message and a new answer. */
  replaceLast?: boolean;
  attachmentIds?: string[];
}

/** Image attachments prepared for a vision model, as base64 (SPEC §11 Images). */
async function visionImages(files: StoredFile[], maxPixels: number): Promise<string[]> {
  const images = files.filter((file) => file.mime.startsWith("image/"));
  return Promise.all(
    images.map(async (file) => (await resizeForVision(file.bytes, { maxPixels })).bytes.toString("base64")),
  );
}

function chooseNative(mode: ChatMode | undefined, llm: LLM): boolean {
  if (mode === "json") return false;
  if (mode === "native" && !llm.abilities.tool_call) {
    throw new AppError(
      "bad_request:mode",
      `Model '${llm.model}' does not support tool calling, so native mode cannot be used. Use mode "auto" or "json".`,
    );
  }
  return true;
}

/**
 * Starts a run: checks the model first (unknown model → 400, Ollama down → 502, nothing stored),
 * then stores the user's message and the run, and runs the agent in the background. The returned
 * live run outlives the HTTP request that started it (SPEC §12).
 */
export async function startChat(db: Db, input: ChatInput, liveRuns = getLiveRuns()): Promise<LiveRun> {
  const conversation = getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
  const config = getConfig();
  const ensureIdle = () => {
    if (liveRuns.forConversation(conversation.id)) {
      throw new AppError("conflict:run_active", "This conversation already has a running answer. Stop it or wait.");
    }
    if (liveRuns.countFor(input.ownerId) >= config.MAX_RUNS_PER_USER) {
      throw new AppError(
        "rate_limited:runs_per_user",
        `You already have ${config.MAX_RUNS_PER_USER} answers running. Wait for one to finish, or stop one, then retry.`,
        { retryable: true, details: { retryAfterSeconds: 10 } },
      );
    }
    if (liveRuns.size >= config.MAX_RUNS_TOTAL) {
      throw new AppError("rate_limited:runs_total", "The server is busy with other answers. Retry in a few seconds.", {
        retryable: true,
        details: { retryAfterSeconds: 10 },
      });
    }
  };
  ensureIdle();
  const model = await resolveModelName(input.model, conversation.model, roleModel(db, "general"));
  const llm = await getLLM(model);
  // SPEC §6: the tool loop may use the fast model; the answer is written by the conversation's.
  const fast = roleModel(db, "fast");
  const loopLlm = fast && fast !== model ? await getLLM(fast) : llm;
  const useNativeTools = chooseNative(input.mode, loopLlm);
  const mode = useNativeTools && loopLlm.abilities.tool_call ? "native" : "json";
  ensureIdle(); // the awaits above leave room for a second request

  if (input.replaceLast) removeLastTurn(db, { conversationId: conversation.id });
  const previous = listMessages(db, { conversationId: conversation.id });
  const autoTitle = conversation.title === DEFAULT_TITLE ? titleFromMessage(input.message) : null;
  const attachments = (input.attachmentIds ?? []).map((fileId) => {
    const file = findFile(db, { conversationId: conversation.id, fileId });
    if (!file) throw new AppError("bad_request:attachment", `Attachment ${fileId} is not a file of this conversation.`);
    return file;
  });
  const images = llm.abilities.vision ? await visionImages(attachments, config.MAX_IMAGE_PIXELS) : [];
  const userMessage = insertMessage(db, {
    conversationId: conversation.id,
    role: "user",
    content: input.message,
    attachmentIds: attachments.map((file) => file.id),
  });
  if (conversation.title === DEFAULT_TITLE || conversation.model !== model) {
    updateConversation(db, {
      id: conversation.id,
      ownerId: input.ownerId,
      title: autoTitle ?? undefined,
      model,
    });
  }
  const run = createRun(db, { conversationId: conversation.id, mode, model });
  const live = new LiveRun(
    run.id,
    conversation.id,
    (event) => appendRunEvent(db, { runId: run.id, seq: event.id, type: event.event, data: event.data }),
    input.ownerId,
  );
  liveRuns.add(live);
  live.emit("run", { runId: run.id, conversationId: conversation.id, userMessageId: userMessage.id, model, mode });

  const language = detectLanguage(input.message);
  const { history, ids } = previousTurns(previous, conversation, language);
  void runAgentTurn({
    db,
    live,
    llm: loopLlm,
    synthesisLlm: llm,
    registry: createServerToolRegistry(db),
    config,
    language,
    useNativeTools,
    input: {
      system: systemPrompt(language, listFileSummaries(db, { conversationId: conversation.id })),
      history,
      question: input.message,
      images,
    },
    // Only a title the user has not changed meanwhile is replaced.
    onTitle: autoTitle
      ? (title) => {
          const current = getConversation(db, { id: conversation.id, ownerId: input.ownerId });
          if (current.title !== autoTitle) return null;
          updateConversation(db, { id: conversation.id, ownerId: input.ownerId, title });
          return title;
        }
      : undefined,
    onInterrupt: (text) =>
      insertMessage(db, { conversationId: conversation.id, role: "user", content: text, runId: run.id }),
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
  return live;
}

/** Stops the conversation's running answer; 409 when nothing runs. */
export function stopChat(conversationId: string, liveRuns = getLiveRuns()): { runId: string } {
  const live = liveRuns.forConversation(conversationId);
  if (!live) throw new AppError("conflict:no_active_run", "Nothing is running in this conversation.");
  live.controller.abort();
  return { runId: live.runId };
}
