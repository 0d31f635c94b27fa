/**
 * The run protocol's pieces (`lib/protocol/run-events.ts` puts them together into events): each a
 * zod schema, its TypeScript type inferred from it, so the browser's decoder, the import's check
 * and the server's types are one definition. Framework-free on purpose: no server, database or
 * React imports.
 */

import type { Usage } from "@/lib/llm/types";
import type { PageInfo } from "@/lib/tools/page-info";
import { toolErrorKindSchema } from "./tool-failures";
import { z } from "./zod";

const count = z.number().int().min(0);
const text = z.string();
/** Epoch ms, or a duration in ms. */
const ms = z.number();

export const usageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  /** How long the model took to write its output tokens (Ollama's `eval_duration`), when it said. */
  generationMs: ms.optional(),
}) satisfies z.ZodType<Usage>;

/** How the run's tool loop talks to the model; research: a research run (docs/research.md, "Research mode"). */
export const runModeSchema = z.enum(["native", "json", "dag", "research"]);
export type RunMode = z.infer<typeof runModeSchema>;

/** A follow-up message the user sent while the run works; its id is the stored user message's. */
export const interruptSchema = z.object({ id: text, text });
export type Interrupt = z.infer<typeof interruptSchema>;

/**
 * A file a tool made, shown as a preview instead of sent to the model: HTML or Markdown (`content`
 * is the text), or a PNG, JPEG, GIF or WebP image (`content` is its base64), at most MCP_MAX_ARTIFACT_MB.
 */
export const artifactSchema = z.object({ filename: text, mimeType: text, content: text });
export type Artifact = z.infer<typeof artifactSchema>;

/**
 * What `remember` did (docs/architecture.md, "Projects and memory"): saved a memory, whose id the
 * answer's chip undoes, or, when the user asks first, proposed one the chip saves or dismisses.
 */
export const memoryNoteSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("saved"), id: text, text }),
  z.object({ status: z.literal("proposed"), text }),
]);
export type MemoryNote = z.infer<typeof memoryNoteSchema>;

/** A page or file a tool read: an http(s) URL, or `attachment:<id>` for a file of the conversation. */
export const readSourceSchema = z.object({
  url: text,
  /** The page's title or the file's name; the URL when it has none. */
  title: text,
});
export type ReadSource = z.infer<typeof readSourceSchema>;

/**
 * A source of the run: numbered from 1 in the order the run first read it (a second read of the
 * same URL keeps its number). The synthesis prompt lists sources by these numbers, so the answer's
 * `[n]` citations point at them.
 */
export const sourceSchema = readSourceSchema.extend({ n: count });
export type Source = z.infer<typeof sourceSchema>;

/** One web_search result. */
export const searchHitSchema = z.object({ title: text, url: text, snippet: text });
export type SearchHit = z.infer<typeof searchHitSchema>;

/**
 * A page with more to read, as the `tool_result` step carries it: the footer's data
 * (`lib/tools/page-info.ts`) and where in the observation the page's text ends and the footer
 * the model read begins, so the UI shows the text without finding the footer in it.
 */
export const pagingSchema = z.object({
  nextToken: text,
  /** Set by pdf_to_text: the PDF pages this text came from. */
  sourcePages: z.object({ first: count, last: count, total: count }).optional(),
  /** The observation's first `bodyChars` characters are the page's text; the rest is its footer. */
  bodyChars: count,
}) satisfies z.ZodType<PageInfo>;
export type Paging = z.infer<typeof pagingSchema>;

/** The user's answer to an approval card: run this call, run this tool without asking in this chat, or not. */
export const approvalDecisions = ["once", "always", "deny"] as const;
export type ApprovalDecision = (typeof approvalDecisions)[number];

/** How an approval ended: the user's decision, or no answer within TOOL_APPROVAL_TIMEOUT_S (a denial). */
const approvalOutcomeSchema = z.enum([...approvalDecisions, "timeout"]);
export type ApprovalOutcome = z.infer<typeof approvalOutcomeSchema>;

/**
 * A call of an MCP tool that acts waits for the user (docs/security.md, "Tools that act need the user's
 * consent"): what the approval card shows, and `approvalId`, which the decision names
 * (`POST /api/conversations/:id/approvals/:approvalId`).
 */
export const approvalRequestSchema = z.object({
  approvalId: text,
  /** The model's call this is (its `tool_call` step), when known. */
  callId: text.optional(),
  /** The qualified name the model called (`server__tool`). */
  tool: text,
  server: text,
  /** The tool's name on its server. */
  toolName: text,
  args: z.unknown(),
  /** The tool's MCP annotations (`readOnlyHint`, `destructiveHint`…) as its server listed them. */
  annotations: z.record(z.string(), z.unknown()),
  /** When the wait ends as a denial (epoch ms). */
  expiresAt: ms,
});
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;

/** How an approval ended, who decided (the account; null in single-user mode or for a timeout); `at` of its step says when. */
export const approvalResolutionSchema = z.object({
  approvalId: text,
  callId: text.optional(),
  tool: text,
  decision: approvalOutcomeSchema,
  decidedBy: text.nullable(),
});
export type ApprovalResolution = z.infer<typeof approvalResolutionSchema>;

/**
 * Why a DAG run made no plan it could use: the planner's plan had no step, a single step (the plain
 * agent's work), or steps that depend on each other in a cycle.
 */
export const planProblemSchema = z.union([
  z.object({ kind: z.literal("empty") }),
  z.object({ kind: z.literal("single") }),
  z.object({ kind: z.literal("cycle"), steps: z.array(text).min(1) }),
]);
export type PlanProblem = z.infer<typeof planProblemSchema>;

/**
 * The engine's notices as data: something cut to fit the model's context (how many characters of
 * how many were kept) — the question, a follow-up, a tool result, the question with its research,
 * or the request of a structured call (`call`: the planner's, the analyzer's, the tool selection's,
 * the research brief's) — a tool budget used, a research budget used, the iteration limit reached,
 * a DAG run answering without a plan (and why), an MCP server that could not be reached, how many
 * of the user's memories the turn's system prompt carries (of how many there are), how many of a
 * research run's web sources were kept in the library and how many a quota refused (which). `text`
 * says the same in the run's language (prompts/*.json); the trail says it in the reader's
 * (messages/*.json).
 */
export const noticeAboutSchema = z.union([
  z.object({
    code: z.literal("cut"),
    what: z.enum(["question", "follow_up", "tool_result", "research"]),
    tool: text.optional(),
    kept: count,
    total: count,
  }),
  z.object({
    code: z.literal("cut"),
    what: z.literal("request"),
    call: z.enum(["planner", "analyzer", "tool_selection", "brief"]),
    kept: count,
    total: count,
  }),
  z.object({ code: z.literal("tool_budget"), budget: z.literal("context"), limit: count, chars: count }),
  z.object({ code: z.literal("tool_budget"), budget: z.literal("rounds"), rounds: count }),
  z.object({ code: z.literal("research_budget"), budget: z.literal("sources"), max: count }),
  z.object({ code: z.literal("research_budget"), budget: z.literal("time"), minutes: count }),
  z.object({ code: z.literal("iteration_limit"), iterations: count }),
  z.object({ code: z.literal("dag_fallback"), problem: planProblemSchema }),
  z.object({ code: z.literal("mcp_unavailable"), server: text }),
  z.object({ code: z.literal("memories"), included: count, total: count }),
  z.object({
    code: z.literal("sources_not_kept"),
    kept: count,
    notKept: count,
    quota: z.enum(["conversation_files", "project_files", "user_storage"]),
  }),
]);
export type NoticeAbout = z.infer<typeof noticeAboutSchema>;
export type NoticeCode = NoticeAbout["code"];

/** How a structured call got its object: the level it succeeded at ("default": none did) and its model calls (at most five). */
export const structuredRecordSchema = z.object({
  level: z.enum(["native", "json_mode", "plain", "default"]),
  calls: count.max(10),
});
export type StructuredRecord = z.infer<typeof structuredRecordSchema>;

/** In DAG mode, `stepId` names the plan step whose agent took the step. */
const scope = { stepId: text.optional() };
/** `seq`: its place among the run's stored events; `at`: when it happened (epoch ms). */
const stored = { seq: count, at: ms };

/**
 * Every kind of step, with `extra` fields: none for the engine's steps, the scope and place for
 * the `step` event. The approval steps come from the web layer's approval gate around the run's
 * tools (`lib/chat/tool-approval.ts`).
 */
function stepKinds<Extra extends z.ZodRawShape>(extra: Extra) {
  const base = { ...extra, iteration: count };
  return [
    z.object({ ...base, type: z.literal("tool_call"), callId: text, tool: text, args: z.unknown() }),
    z.object({
      ...base,
      type: z.literal("tool_result"),
      callId: text,
      tool: text,
      ok: z.boolean(),
      /** The failure's kind, when `ok` is false: the card words it. */
      errorKind: toolErrorKindSchema.optional(),
      /** What the model read, footer included. */
      observation: text,
      /** A page with more to read: its footer as data, so the UI need not read the text. */
      paging: pagingSchema.optional(),
      durationMs: ms,
      artifact: artifactSchema.optional(),
      /** The page or file this call read, with its number among the run's sources. */
      source: sourceSchema.optional(),
      /** pdf_to_text: the PDF pages this text comes from, whether or not more follows. */
      pages: z.object({ first: count, last: count, total: count }).optional(),
      /** web_search: the results, as data (the model read them as JSON). */
      results: z.array(searchHitSchema).optional(),
      /** remember: the memory saved or proposed. */
      memory: memoryNoteSchema.optional(),
    }),
    z.object({
      ...base,
      type: z.literal("thinking"),
      text,
      /** How long the model thought, when it was streamed ("Thought for N s"). */
      durationMs: ms.optional(),
    }),
    z.object({ ...base, type: z.literal("interrupt"), interrupts: z.array(interruptSchema) }),
    z.object({
      ...base,
      type: z.literal("tool_selection"),
      selected: z.array(text),
      total: count,
      /** The selection call failed: every tool is offered, not a choice. */
      fellBack: z.literal(true).optional(),
      /** How the selection's structured call went. */
      structured: structuredRecordSchema.optional(),
    }),
    z.object({
      ...base,
      type: z.literal("notice"),
      /** A whole sentence in the run's language. */
      text,
      /** What the notice says, as data: the trail words it in the reader's language; absent on other notices. */
      about: noticeAboutSchema.optional(),
    }),
    approvalRequestSchema.extend({ ...base, type: z.literal("approval_request") }),
    approvalResolutionSchema.extend({ ...base, type: z.literal("approval_decision") }),
  ] as const;
}

/** What the agent engine reports while it works, before the web layer numbers it. */
export const agentStepSchema = z.discriminatedUnion("type", stepKinds({}));
export type AgentStep = z.infer<typeof agentStepSchema>;
export type AgentStepType = AgentStep["type"];

/** A step as the web layer emits it: in DAG mode, `stepId` names the plan step whose agent took it. */
export type ScopedStep = AgentStep & { stepId?: string };

/** A `step` event: the agent's step, `seq` its place among the run's stored events, `at` when it happened. */
export const runStepSchema = z.discriminatedUnion("type", stepKinds({ ...scope, ...stored }));
export type RunStep = z.infer<typeof runStepSchema>;

/** The context was compacted: how many messages and tokens before and after. */
export const compactionSchema = z.object({
  /** DAG mode: the plan step whose agent compacted its context. */
  ...scope,
  originalMessages: count,
  keptMessages: count,
  tokensBefore: count,
  tokensAfter: count,
});
export type Compaction = z.infer<typeof compactionSchema>;

/** Which model role a plan step asks for; null is the conversation's model. */
export const modelHintSchema = z.enum(["fast", "reasoning"]).nullable();
export type ModelHint = z.infer<typeof modelHintSchema>;

/** One step of a DAG plan (docs/engine.md, "DAG mode"). Ids are unique within the run. */
export const planStepSchema = z.object({
  id: text,
  task: text,
  dependencies: z.array(text),
  tool_hint: text.nullable(),
  model_hint: modelHintSchema,
});
export type PlanStep = z.infer<typeof planStepSchema>;

/** The DAG analyzer's judgement of the results so far (docs/engine.md, "DAG mode"). */
export const verdictSchema = z.object({
  achieved: z.boolean(),
  /** 0 to 1. */
  confidence: z.number().min(0).max(1),
  reasoning: text,
});
export type Verdict = z.infer<typeof verdictSchema>;

/** `plan`: the steps of one planning round (re-plans count up). */
export const planSchema = z.object({
  round: count,
  steps: z.array(planStepSchema),
  /** A re-plan's: the analyzer's verdict on the rounds before, which asked for this one. */
  verdict: verdictSchema.optional(),
  /** How the planner's structured call that made this plan went. */
  structured: structuredRecordSchema.optional(),
});
export type Plan = z.infer<typeof planSchema>;

export const stepProgressStatusSchema = z.enum(["running", "done", "failed", "skipped"]);
export type StepProgressStatus = z.infer<typeof stepProgressStatusSchema>;

/** `step_progress`: a plan step started or ended, on `model` ("" for a step skipped before it had one). */
export const stepProgressSchema = z.object({
  stepId: text,
  status: stepProgressStatusSchema,
  model: text,
  /** What the step found (done), or why it failed or was skipped. */
  result: text.optional(),
  /** When this happened (epoch ms), so a page that re-attaches can show how long a step has run. */
  at: ms,
  /** How long the step ran, once it ended. */
  durationMs: ms.optional(),
});
export type StepProgress = z.infer<typeof stepProgressSchema>;

/** A compaction among a finished run's stored steps, where it happened. */
export type CompactionStep = Compaction & { type: "compact"; seq: number };

/** DAG mode's plan and step progress among a finished run's stored steps, where they happened. */
export type PlanEntry = Plan & { type: "plan"; seq: number };
export type StepProgressEntry = StepProgress & { type: "step_progress"; seq: number };

/** What a stored run shows again after a reload, in order. */
export type StoredStep = RunStep | CompactionStep | PlanEntry | StepProgressEntry;
