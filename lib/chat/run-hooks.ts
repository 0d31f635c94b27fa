import "server-only";
import { roleModel } from "@/lib/admin-settings";
import type { CompactionEvent } from "@/lib/agent/context-guard";
import { noticeText } from "@/lib/agent/notices";
import type { Db } from "@/lib/db/client";
import { getConversation, saveConversationSummary, updateConversation } from "@/lib/db/conversations";
import { takeInterrupt } from "@/lib/db/interrupts";
import type { Conversation } from "@/lib/db/schema";
import { allowToolAlways, isToolAlwaysAllowed } from "@/lib/db/tool-approvals";
import type { Config } from "@/lib/env-config";
import { getLLM } from "@/lib/llm/registry";
import type { ChatMessage, LLM } from "@/lib/llm/types";
import { WEB_TOOL_GROUP } from "@/lib/mcp/tool-groups";
import { runMemoryWriter } from "@/lib/memory/run-memory";
import type { PromptLanguage } from "@/lib/prompts";
import type { Interrupt, ModelHint } from "@/lib/protocol/run-events";
import { createRemember } from "@/lib/tools/builtin/remember";
import type { ToolRegistry } from "@/lib/tools/registry";
import { createRunToolRegistry } from "@/lib/tools/server-tools";
import type { LiveRun, LiveRuns } from "./live-run";
import type { ChatInput, PreparedTurn } from "./prepare-turn";
import type { EndStatus } from "./run-status";
import { gateToolCalls } from "./tool-approval";

/** What a run asks of the rest of the server while it goes: its tools, its models, and where its results are kept. */
export interface RunHooks {
  /** The run's tools, made once the run has started (MCP servers may take a moment to connect). */
  registry: (signal: AbortSignal) => Promise<ToolRegistry>;
  /** DAG mode: a plan step's model by its hint, resolved when the step starts. */
  resolveRoleModel: (hint: ModelHint) => Promise<LLM>;
  /** Where each drained interrupt is stored as a user message of the conversation, under its id. */
  onInterrupt: (interrupt: Interrupt) => void;
  /** Where a compaction summary of earlier turns is kept for the next turns. */
  onCompact: (event: CompactionEvent) => void;
  /** Set on a conversation's first turn: stores a title made from the first exchange. */
  onTitle?: (title: string) => Promise<string | null>;
  /**
   * The run is over and stored, just before its `done`: the conversation is free for its next turn
   * (the title may still be in the making), and the interrupts it never took are handed over.
   */
  onEnd?: (end: { status: EndStatus; pending: Interrupt[] }) => void;
  /** The run's end could not be stored (not for a busy database): its row must still be marked ended. */
  onEndNotStored: (error: string) => Promise<void>;
}

export interface RunHookContext {
  live: LiveRun;
  liveRuns: LiveRuns;
  conversation: Conversation;
  input: ChatInput;
  turn: PreparedTurn;
  config: Config;
  language: PromptLanguage;
  /** The question the run answers: the follow-ups it takes hang under it. */
  questionId: string;
  /** The title a first turn was given from its question, which the model's title may replace. */
  autoTitle: string | null;
  /** The stored id of each earlier turn given to the model, to know what a compaction summary covers. */
  ids: Map<ChatMessage, string>;
  /** How the run's busy writes are retried, for marking an end that could not be stored. */
  busyRetries: { attempts: number; delayMs: number };
  /** Follow-ups a completed run never took: they become the next turn. */
  continueWith: (pending: Interrupt[]) => void;
}

/** The run's hooks into the database and the live runs, for one turn of one conversation. */
export function runHooks(db: Db, context: RunHookContext): RunHooks {
  const { live, liveRuns, conversation, input, turn, config, language, autoTitle } = context;
  const conversationId = conversation.id;
  const memory = turn.memory.active
    ? runMemoryWriter(db, { ownerId: input.ownerId, runId: live.runId, askBeforeSaving: turn.memory.askBeforeSaving })
    : undefined;
  return {
    // The conversation's tool groups; an MCP server that cannot connect is named in a notice. Its
    // tools that act wait for the user's approval (docs/security.md, "Tools that act need the user's consent").
    registry: async (signal) => {
      const { disabledToolGroups } = conversation;
      const { registry, unavailable } = await createRunToolRegistry(db, { conversationId, disabledToolGroups, signal });
      for (const server of unavailable) {
        const about = { code: "mcp_unavailable", server } as const;
        live.emitStep({ type: "notice", iteration: 0, text: noticeText(language, about), about }, Date.now());
      }
      // The memories the turn's prompt carries, of how many: never a silent cut (docs/architecture.md, "Projects and memory").
      if (turn.memory.total > 0) {
        const about = { code: "memories", included: turn.memory.included, total: turn.memory.total } as const;
        live.emitStep({ type: "notice", iteration: 0, text: noticeText(language, about), about }, Date.now());
      }
      // `remember` is a built-in tool: switched off with them.
      if (memory && !disabledToolGroups.includes(WEB_TOOL_GROUP)) registry.register(createRemember(memory));
      return gateToolCalls(registry, {
        pending: live.approvals,
        always: {
          has: (tool) => isToolAlwaysAllowed(db, { conversationId, tool }),
          add: (tool, approvedBy) => allowToolAlways(db, { conversationId, tool, approvedBy }),
        },
        onStep: (step) => live.emitStep(step, Date.now()),
        timeoutMs: config.TOOL_APPROVAL_TIMEOUT_S * 1000,
        language,
      });
    },
    // Each step's model comes from its role, read when the step starts; none set → the conversation's.
    resolveRoleModel: async (hint) => {
      const name = hint ? await roleModel(db, hint) : undefined;
      return hint && name && name !== turn.model ? getLLM(name, turn.settings, hint) : turn.llm;
    },
    // Only a title the user has not changed meanwhile is replaced; a run ended from outside (its
    // account removed) has no conversation left to title.
    onTitle: autoTitle
      ? async (title) => {
          if (live.isEnded) return null;
          const current = await getConversation(db, { id: conversationId, ownerId: input.ownerId });
          if (current.title !== autoTitle) return null;
          await updateConversation(db, { id: conversationId, ownerId: input.ownerId, title });
          return title;
        }
      : undefined,
    // The conversation takes its next turn at `done`, while the title is still being made; follow-ups
    // a completed run never took are that turn.
    onEnd: ({ status, pending }) => {
      liveRuns.remove(live);
      // The answer is stored now: what was saved from the run names it.
      memory?.attach().catch((error) => console.error("[memory] naming the answer failed", error));
      if (status === "complete" && pending.length > 0) context.continueWith(pending);
    },
    onEndNotStored: (error) =>
      liveRuns.unended.add(db, conversationId, { runId: live.runId, error }, context.busyRetries),
    onInterrupt: (interrupt) =>
      live.queueWrite(
        () => takeInterrupt(db, { interrupt, conversationId, runId: live.runId, parentId: context.questionId }),
        `follow-up ${interrupt.id}`,
      ),
    onCompact: (event) => {
      // Keep the summary for later turns when it replaced earlier turns of the conversation.
      const covered = event.replaced
        .map((message) => context.ids.get(message))
        .filter((id): id is string => Boolean(id));
      const through = covered.at(-1);
      const summary = event.summary;
      if (summary && through) {
        live.queueWrite(
          () => saveConversationSummary(db, { id: conversationId, summary, throughMessageId: through }),
          "the compaction summary",
        );
      }
    },
  };
}
