/** A run: starting one (`POST /api/chat`), following its events, stopping it, follow-ups and approvals while it runs. */
import type { z } from "zod";
import type { chatBody } from "@/app/api/chat/schema";
import type { approvalBody, interruptBody } from "@/app/api/conversations/schema";
import type { stopChat } from "@/lib/chat/chat-service";
import type { ApprovalDecided } from "@/lib/protocol/run-events";
import type { InterruptAccepted } from "../types";
import { conversationPath } from "./conversations";
import { jsonBody, openStream, request } from "./request";

type ChatInput = z.input<typeof chatBody>;

/**
 * What every turn names: its conversation, and the model and mode when they are not the
 * conversation's ("dag" plans first; "auto", "native" and "json" are the ReAct agent's ways to call tools).
 */
type Turn = Pick<ChatInput, "conversationId" | "model" | "mode">;

/**
 * A new question, after the end of the branch shown (or `parentId`) or as a new version of
 * `editOf`, with files of the conversation (`attachmentIds`) and unsent follow-ups it sends (`interruptIds`).
 */
type Question = Pick<ChatInput, "attachmentIds" | "interruptIds" | "parentId" | "editOf"> & {
  message: NonNullable<ChatInput["message"]>;
};
type Ask = Question & { regenerate?: never; research?: never; resume?: never };

/** A new answer to the question of the answer `regenerate`: the stored question, with its files, is answered again. */
type Regenerate = { regenerate: NonNullable<ChatInput["regenerate"]>; research?: never; resume?: never } & {
  [K in keyof Question]?: never;
};

/** Research mode: the research of `research.brief`, after the answer `parentId` that proposed it; no message. */
type Research = { mode: "research"; research: NonNullable<ChatInput["research"]>; resume?: never } & Pick<
  ChatInput,
  "parentId"
> & {
    [K in Exclude<keyof Question, "parentId"> | "regenerate"]?: never;
  };

/** Research mode: resume the research a restart interrupted, whose report is the answer `resume`. */
type Resume = { mode: "research"; resume: NonNullable<ChatInput["resume"]>; research?: never; regenerate?: never } & {
  [K in keyof Question]?: never;
};

/** `POST /api/chat`'s body: the route's schema, with "a question, a regeneration, a research or a resume" said in the type. */
export type ChatRequest = Turn & (Ask | Regenerate | Research | Resume);

export type ApprovalRequest = z.input<typeof approvalBody>;
export type InterruptRequest = z.input<typeof interruptBody>;

export const runsApi = {
  /** Starts a run; resolves with the SSE response once the server accepted it. */
  chat: (body: ChatRequest, signal?: AbortSignal) =>
    openStream("/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal,
    }),

  /** A run's events after `after` ("0", "12" or "12.3"), then live ones while it runs. */
  runEvents: (runId: string, after: string, signal?: AbortSignal) =>
    openStream(`/api/runs/${encodeURIComponent(runId)}/events?after=${encodeURIComponent(after)}`, {
      headers: { Accept: "text/event-stream" },
      cache: "no-store",
      signal,
    }),

  stop: (id: string) =>
    request<{ stopping: true } & ReturnType<typeof stopChat>>(`${conversationPath(id)}/stop`, { method: "POST" }),

  /** The user's decision on a tool call that waits for approval; ApiError 409 once nothing waits. */
  decideApproval: (id: string, approvalId: string, decision: ApprovalRequest["decision"]) =>
    request<ApprovalDecided>(
      `${conversationPath(id)}/approvals/${encodeURIComponent(approvalId)}`,
      jsonBody("POST", { decision } satisfies ApprovalRequest),
    ),

  /** A message for the running agent: 202 while it runs, ApiError 409 once it has finished. */
  interrupt: (id: string, message: InterruptRequest["message"]) =>
    request<InterruptAccepted>(
      `${conversationPath(id)}/interrupt`,
      jsonBody("POST", { message } satisfies InterruptRequest),
    ),

  /** Discards an unsent follow-up the server holds. */
  discardInterrupt: (id: string, interruptId: string) =>
    request<void>(`${conversationPath(id)}/interrupts/${encodeURIComponent(interruptId)}`, { method: "DELETE" }),
};
