/**
 * The run protocol: every event a run sends over SSE and the shape of its data, defined once. The
 * server emits through these types (`LiveRun.emit`), stores them and replays them; the browser
 * decodes the wire with `decodeRunEvent` and folds the same types. A field changed here is a
 * compile error on both sides. Framework-free on purpose: no server, database or React imports.
 */
import type { Usage } from "@/lib/llm/types";
import type { PageInfo } from "@/lib/tools/page-info";

export type { Usage };

/** How the run's tool loop talks to the model. */
export type RunMode = "native" | "json" | "dag";

/** A follow-up message the user sent while the run works; its id is the stored user message's. */
export interface Interrupt {
  id: string;
  text: string;
}

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

/**
 * A file a tool made, shown as a preview instead of sent to the model: HTML or Markdown (`content`
 * is the text), or a PNG, JPEG, GIF or WebP image (`content` is its base64), at most MCP_MAX_ARTIFACT_MB.
 */
export interface Artifact {
  filename: string;
  mimeType: string;
  content: string;
}

/** A page or file a tool read: an http(s) URL, or `attachment:<id>` for a file of the conversation. */
export interface ReadSource {
  url: string;
  /** The page's title or the file's name; the URL when it has none. */
  title: string;
}

/**
 * A source of the run: numbered from 1 in the order the run first read it (a second read of the
 * same URL keeps its number). The synthesis prompt lists sources by these numbers, so the answer's
 * `[n]` citations point at them.
 */
export type Source = ReadSource & { n: number };

/** One web_search result. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** The user's answer to an approval card: run this call, run this tool without asking in this chat, or not. */
export const approvalDecisions = ["once", "always", "deny"] as const;
export type ApprovalDecision = (typeof approvalDecisions)[number];

/** How an approval ended: the user's decision, or no answer within TOOL_APPROVAL_TIMEOUT_S (a denial). */
export type ApprovalOutcome = ApprovalDecision | "timeout";

/**
 * A call of an MCP tool that acts waits for the user (docs/security.md, "Tools that act need the user's
 * consent"): what the approval card shows, and `approvalId`, which the decision names
 * (`POST /api/conversations/:id/approvals/:approvalId`).
 */
export interface ApprovalRequest {
  approvalId: string;
  /** The model's call this is (its `tool_call` step), when known. */
  callId?: string;
  /** The qualified name the model called (`server__tool`). */
  tool: string;
  server: string;
  /** The tool's name on its server. */
  toolName: string;
  args: unknown;
  /** The tool's MCP annotations (`readOnlyHint`, `destructiveHint`…) as its server listed them. */
  annotations: Record<string, unknown>;
  /** When the wait ends as a denial (epoch ms). */
  expiresAt: number;
}

/** How an approval ended, who decided (the account; null in single-user mode or for a timeout); `at` of its step says when. */
export interface ApprovalResolution {
  approvalId: string;
  callId?: string;
  tool: string;
  decision: ApprovalOutcome;
  decidedBy: string | null;
}

/**
 * What the agent engine reports while it works, before the web layer numbers it; the approval
 * steps come from the web layer's approval gate around the run's tools (`lib/chat/tool-approval.ts`).
 */
export type AgentStep =
  | { type: "tool_call"; iteration: number; callId: string; tool: string; args: unknown }
  | {
      type: "tool_result";
      iteration: number;
      callId: string;
      tool: string;
      ok: boolean;
      /** What the model read, footer included. */
      observation: string;
      /** A page with more to read: its footer as data, so the UI need not read the text. */
      paging?: PageInfo;
      durationMs: number;
      artifact?: Artifact;
      /** The page or file this call read, with its number among the run's sources. */
      source?: Source;
      /** web_search: the results, as data (the model read them as JSON). */
      results?: SearchHit[];
    }
  | {
      type: "thinking";
      iteration: number;
      text: string;
      /** How long the model thought, when it was streamed ("Thought for N s"). */
      durationMs?: number;
    }
  | { type: "interrupt"; iteration: number; interrupts: Interrupt[] }
  | {
      type: "tool_selection";
      iteration: number;
      selected: string[];
      total: number;
      /** The selection call failed: every tool is offered, not a choice. */
      fellBack?: true;
      /** How the selection's structured call went. */
      structured?: StructuredRecord;
    }
  | {
      type: "notice";
      iteration: number;
      /** A whole sentence in the run's language. */
      text: string;
      /** What the notice says, as data: the trail words it in the reader's language; absent on other notices. */
      about?: NoticeAbout;
    }
  | ({ type: "approval_request"; iteration: number } & ApprovalRequest)
  | ({ type: "approval_decision"; iteration: number } & ApprovalResolution);

/**
 * The engine's notices as data: something cut to fit the model's context (how many characters of
 * how many were kept), a tool budget used, the iteration limit reached. `text` says the same in the
 * run's language (prompts/*.json); the trail says it in the reader's (messages/*.json).
 */
export type NoticeAbout =
  | {
      code: "cut";
      what: "question" | "follow_up" | "tool_result" | "research";
      tool?: string;
      kept: number;
      total: number;
    }
  | { code: "tool_budget"; budget: "context"; limit: number; chars: number }
  | { code: "tool_budget"; budget: "rounds"; rounds: number }
  | { code: "iteration_limit"; iterations: number };

export type NoticeCode = NoticeAbout["code"];

export type AgentStepType = AgentStep["type"];

/** A step as the web layer emits it: in DAG mode, `stepId` names the plan step whose agent took it. */
export type ScopedStep = AgentStep & { stepId?: string };

/** A `step` event: the agent's step, `seq` its place among the run's stored events, `at` when it happened. */
export type RunStep = ScopedStep & { seq: number; at: number };

/** The context was compacted: how many messages and tokens before and after. */
export interface Compaction {
  /** DAG mode: the plan step whose agent compacted its context. */
  stepId?: string;
  originalMessages: number;
  keptMessages: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** A compaction among a finished run's stored steps, where it happened. */
export type CompactionStep = Compaction & { type: "compact"; seq: number };

/** DAG mode's plan and step progress among a finished run's stored steps, where they happened. */
export type PlanEntry = Plan & { type: "plan"; seq: number };
export type StepProgressEntry = StepProgress & { type: "step_progress"; seq: number };

/** What a stored run shows again after a reload, in order. */
export type StoredStep = RunStep | CompactionStep | PlanEntry | StepProgressEntry;

/** `run`: the run exists; the question is stored as `userMessageId`. */
export interface RunStarted {
  runId: string;
  conversationId: string;
  userMessageId: string;
  model: string;
  mode: RunMode;
}

/** Which model role a plan step asks for; null is the conversation's model. */
export type ModelHint = "fast" | "reasoning" | null;

/** One step of a DAG plan (docs/engine.md, "DAG mode"). Ids are unique within the run. */
export interface PlanStep {
  id: string;
  task: string;
  dependencies: string[];
  tool_hint: string | null;
  model_hint: ModelHint;
}

/** How a structured call got its object: the level it succeeded at ("default": none did) and its model calls. */
export interface StructuredRecord {
  level: "native" | "json_mode" | "plain" | "default";
  calls: number;
}

/** The DAG analyzer's judgement of the results so far (docs/engine.md, "DAG mode"). */
export interface Verdict {
  achieved: boolean;
  /** 0 to 1. */
  confidence: number;
  reasoning: string;
}

/** `plan`: the steps of one planning round (re-plans count up). */
export interface Plan {
  round: number;
  steps: PlanStep[];
  /** A re-plan's: the analyzer's verdict on the rounds before, which asked for this one. */
  verdict?: Verdict;
  /** How the planner's structured call that made this plan went. */
  structured?: StructuredRecord;
}

export type StepProgressStatus = "running" | "done" | "failed" | "skipped";

/** `step_progress`: a plan step started or ended, on `model` ("" for a step skipped before it had one). */
export interface StepProgress {
  stepId: string;
  status: StepProgressStatus;
  model: string;
  /** What the step found (done), or why it failed or was skipped. */
  result?: string;
  /** When this happened (epoch ms), so a page that re-attaches can show how long a step has run. */
  at: number;
  /** How long the step ran, once it ended. */
  durationMs?: number;
}

/** `answer`: the streamed answer. A second `start` in one run discards the text so far. */
export type AnswerPart = { status: "start" } | { status: "delta"; content: string } | { status: "done" };

/**
 * `thinking`: a piece of the model's thinking as it is written, not stored; the whole of it follows
 * as a `thinking` step of the same iteration, which replaces it. Synthesis thinks in iteration 0.
 */
export interface ThinkingDelta {
  iteration: number;
  /** DAG mode: the plan step whose agent thinks. */
  stepId?: string;
  delta: string;
}

/** `title`: the conversation's new title, made after `done` (the stream's last event then). */
export interface TitleMade {
  title: string;
}

/**
 * `error`: why the run failed; the run still ends with `done`. `code` and `details` as in the API's
 * errors: the browser words it in the user's language from them (`lib/client/error-text.ts`).
 */
export interface RunFailure {
  code: string;
  message: string;
  retryable: boolean;
  details?: unknown;
}

/** `done`: always the run's last event. */
export interface RunDone {
  /** The stored assistant message (stored later when the database is busy, under this id). */
  messageId: string;
  iterations: number;
  usage: Usage;
  elapsedMs: number;
  stopped?: boolean;
  /** The answer failed after it had begun to stream: what streamed is kept, cut; the `error` before says why. */
  interrupted?: boolean;
  /** Synthesis failed before any of it streamed: the answer is the tool loop's draft; the `error` before says why. */
  fallback?: boolean;
  /** The tool loop stopped at MAX_ITERATIONS: the answer is written from what it had found (an `iteration_limit` notice says so too). */
  iterationLimit?: boolean;
  /** Interrupts the run never took: held by the server, the next turn (a completed run) or unsent messages. */
  pendingInterrupts?: Interrupt[];
  /** On a conversation's first turn: a `title` event follows, once the model has made it. */
  titlePending?: boolean;
}

/** Every event of a run, by name. */
export interface RunEventMap {
  run: RunStarted;
  step: RunStep;
  plan: Plan;
  step_progress: StepProgress;
  compact: Compaction;
  answer: AnswerPart;
  thinking: ThinkingDelta;
  error: RunFailure;
  done: RunDone;
  title: TitleMade;
}

export type RunEventName = keyof RunEventMap;
export type RunEventData<K extends RunEventName> = RunEventMap[K];

/** One event as it travels: its name, its data and its id (`N` stored, `N.k` an answer delta). */
export type RunEvent = { [K in RunEventName]: { event: K; data: RunEventMap[K]; id?: string } }[RunEventName];

/** An event as the server sends and replays it: always with the id a client resumes after. */
export type SentRunEvent = RunEvent & { id: string };

const RUN_EVENT_NAMES: Record<RunEventName, true> = {
  run: true,
  step: true,
  plan: true,
  step_progress: true,
  compact: true,
  answer: true,
  thinking: true,
  error: true,
  done: true,
  title: true,
};

export function isRunEventName(name: string): name is RunEventName {
  return Object.hasOwn(RUN_EVENT_NAMES, name);
}

/**
 * The one place where a run event from the wire is trusted: the name must be one of the protocol's
 * and the data JSON, else the event is ignored (null). The data is our own server's, so its shape
 * is taken as the protocol says.
 */
export function decodeRunEvent(message: { event?: string; data: string; id?: string | null }): RunEvent | null {
  if (!message.event || !isRunEventName(message.event)) return null;
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  return { event: message.event, data, ...(message.id ? { id: message.id } : {}) } as RunEvent;
}
