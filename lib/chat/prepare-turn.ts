import "server-only";
import { roleModel, syncSettings } from "@/lib/admin-settings";
import { briefText } from "@/lib/agent/research/brief-text";
import type { ResearchStart } from "@/lib/agent/research/research-agent";
import { decideToolCalling, type RequestedToolCalling } from "@/lib/agent/tool-calling-mode";
import type { AgentMode } from "@/lib/agent/types";
import type { ChatSettings } from "@/lib/chat-settings";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { findFile } from "@/lib/db/files";
import { unsentInterrupts } from "@/lib/db/interrupts";
import { isInterrupt } from "@/lib/db/message-tree";
import { messageTree } from "@/lib/db/messages";
import { turnInstructions } from "@/lib/db/projects";
import type { Conversation, Message, StoredFile } from "@/lib/db/schema";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { resizeForVision } from "@/lib/files/image-resize";
import { getLLM } from "@/lib/llm/registry";
import type { LLM } from "@/lib/llm/types";
import { type TurnMemory, turnMemory } from "@/lib/memory/turn-memory";
import { detectLanguage } from "@/lib/prompts";
import type { ResearchBrief } from "@/lib/protocol/research";
import { resumedResearch } from "./research-resume";
import { chooseTurnModel } from "./turn-model";

/**
 * What a turn is asked to do, checked before anything is stored: where it goes in the tree, its
 * attachments, the models that answer it and how it runs. A refused turn leaves no trace.
 */

/** How a turn runs: the ReAct agent (its tool calling chosen or forced), DAG mode, or research mode. */
export type ChatMode = RequestedToolCalling | "dag" | "research";

/**
 * Where a turn goes in the conversation's tree (docs/api.md, `POST /api/chat`): after an answer
 * (by default the end of the branch shown), as a new version of a question (edit), or as a new
 * version of an answer to the same question (regenerate: no new question), or, in research mode, the
 * research of a brief after the answer that proposed it (its question is the brief as Markdown).
 */
export type TurnPlace =
  | {
      message: string;
      parentId?: string;
      editOf?: undefined;
      regenerate?: undefined;
      research?: undefined;
      resume?: undefined;
    }
  | {
      message: string;
      editOf: string;
      parentId?: undefined;
      regenerate?: undefined;
      research?: undefined;
      resume?: undefined;
    }
  | {
      regenerate: string;
      message?: undefined;
      parentId?: undefined;
      editOf?: undefined;
      research?: undefined;
      resume?: undefined;
    }
  | {
      research: ResearchBrief;
      parentId?: string;
      message?: undefined;
      editOf?: undefined;
      regenerate?: undefined;
      resume?: undefined;
    }
  | {
      resume: string;
      message?: undefined;
      parentId?: undefined;
      editOf?: undefined;
      regenerate?: undefined;
      research?: undefined;
    };

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

export function toolCallingFor(requested: RequestedToolCalling | undefined, llm: LLM): AgentMode {
  const decided = decideToolCalling(requested, llm.abilities);
  if ("refusal" in decided) {
    throw new AppError("bad_request:mode", `Model '${llm.model}' ${decided.refusal}`, {
      details: { model: llm.model },
    });
  }
  return decided.mode;
}

/** The turn's question and what it follows: a new question under `parentId`, or a stored one answered again. */
export type TurnQuestion =
  | { stored: null; parentId: string | null; text: string; attachmentIds: string[] }
  | { stored: Message; parentId: string | null; text: string; attachmentIds: string[] };

/** Checks the ids of `place` against the conversation's messages; 400 with what is wrong. */
async function questionOf(
  db: Db,
  conversation: Conversation,
  place: TurnPlace,
  attachmentIds: string[],
): Promise<TurnQuestion> {
  const tree = await messageTree(db, { conversationId: conversation.id });
  // A resumed research run is a new version of the interrupted answer, to the same stored question.
  if (place.regenerate !== undefined || place.resume !== undefined) {
    const answered = place.regenerate ?? place.resume;
    const answer = tree.get(answered);
    const question = answer?.parentId ? tree.get(answer.parentId) : undefined;
    if (answer?.role !== "assistant" || !question) {
      throw new AppError("bad_request:regenerate", `Message ${answered} is not an answer in this conversation.`);
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
  const parentId = place.parentId ?? conversation.activeLeafId;
  if (place.research !== undefined) {
    return { stored: null, parentId, text: briefText(place.research, briefLanguage(place.research)), attachmentIds };
  }
  return { stored: null, parentId, text: place.message, attachmentIds };
}

/** The language a brief is written in: the run that researches it works in it. */
const briefLanguage = (brief: ResearchBrief) =>
  detectLanguage([brief.goal, ...brief.sections.map((section) => section.title)].join("\n"));

/**
 * What a research turn does (docs/research.md, "Research mode"): research the brief it was given,
 * or resume the interrupted run of one; otherwise propose one — and with `researchAutoStart`, asking
 * nothing, research it in the same run.
 */
async function researchStart(
  db: Db,
  place: TurnPlace,
  question: TurnQuestion,
  settings: ChatSettings,
): Promise<{ start: ResearchStart; resumes?: string }> {
  if (place.resume !== undefined && question.stored) {
    const answer = (await messageTree(db, { conversationId: question.stored.conversationId })).get(place.resume);
    if (answer) {
      const resumed = await resumedResearch(db, { answer, question: question.stored });
      return { start: resumed.start, resumes: resumed.fromRunId };
    }
  }
  if (place.research !== undefined) return { start: { brief: place.research } };
  return {
    start: settings.researchAutoStart
      ? { propose: { ask: false, thenResearch: true } }
      : { propose: { ask: true, thenResearch: false } },
  };
}

/** Everything a turn needs that can be refused, found before anything is stored. */
export interface PreparedTurn {
  /** The conversation's model; `llm` answers (the vision model, for images the conversation's cannot see). */
  question: TurnQuestion;
  model: string;
  llm: LLM;
  loopLlm: LLM;
  /** The loop's model without the conversation's settings: the title keeps its own. */
  titleLlm: LLM;
  /** The conversation's own settings, as the turn started: every model call of the turn uses them. */
  settings: ChatSettings;
  mode: AgentMode | "dag" | "research";
  /** Research mode: propose a brief, or research the one given. */
  research?: ResearchStart;
  /** A resumed research run: the interrupted run whose sources it starts from. */
  resumes?: string;
  attachments: StoredFile[];
  images: string[];
  /** The owner's memories the turn reads, and whether it may write (docs/architecture.md, "Projects and memory"). */
  memory: TurnMemory;
}

export async function prepareTurn(
  db: Db,
  input: ChatInput,
  conversation: Conversation,
  config: Config,
): Promise<PreparedTurn> {
  // Settings another instance changed since this one read them apply from this run on.
  await syncSettings(db);
  const question = await questionOf(db, conversation, input, input.attachmentIds ?? []);
  // A project's instructions come before the chat's own (docs/architecture.md, "Projects and memory").
  const instructions = await turnInstructions(db, conversation);
  const settings: ChatSettings = { ...conversation.settings, ...(instructions ? { instructions } : {}) };
  // A private chat, or an owner with memory off, reads none and writes none.
  const memory = await turnMemory(db, {
    ownerId: input.ownerId,
    conversation,
    question: question.text,
    maxChars: config.MEMORY_MAX_CHARS,
  });
  await unsentInterrupts(db, { conversationId: conversation.id, ids: input.interruptIds ?? [] });
  const attachments: StoredFile[] = [];
  for (const fileId of question.attachmentIds) {
    const file = await findFile(db, { conversationId: conversation.id, fileId });
    if (!file) throw new AppError("bad_request:attachment", `Attachment ${fileId} is not a file of this conversation.`);
    attachments.push(file);
  }
  const { conversationModel: model, llm } = await chooseTurnModel(db, {
    requested: input.model,
    conversationModel: conversation.model,
    withImages: attachments.some((file) => file.mime.startsWith("image/")),
    settings,
  });
  // The tool loop may use the fast model; the answer is written by the turn's model.
  const fast = await roleModel(db, "fast");
  const loopLlm = fast && fast !== llm.model ? await getLLM(fast, settings, "fast") : llm;
  // The title is written without the chat's settings, with the keep-alive of the model's role.
  const titleRole = loopLlm !== llm ? "fast" : llm.model !== model ? "vision" : "general";
  const titleLlm = await getLLM(loopLlm.model, {}, titleRole);
  // DAG and research mode: each step's model calls tools its own way (native or JSON by its abilities).
  const mode = input.mode === "dag" || input.mode === "research" ? input.mode : toolCallingFor(input.mode, loopLlm);
  const research = input.mode === "research" ? await researchStart(db, input, question, settings) : undefined;
  const images = llm.abilities.vision ? await visionImages(attachments, config.MAX_IMAGE_PIXELS) : [];
  return {
    question,
    model,
    llm,
    loopLlm,
    titleLlm,
    settings,
    mode,
    research: research?.start,
    ...(research?.resumes ? { resumes: research.resumes } : {}),
    attachments,
    images,
    memory,
  };
}
