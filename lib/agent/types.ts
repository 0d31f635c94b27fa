import type { ChatMessage, LLM, ToolSpec, Usage } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import type { AgentStep, AnswerPart, Interrupt, Source, ThinkingDelta } from "@/lib/protocol/run-events";
import type { ToolOutcome } from "@/lib/tools/outcome";
import type { CompactionEvent } from "./context-guard";
import type { SourceList } from "./sources";

/** What the engine talks to — all passed in, so every rule is testable with a scripted model. */

export type { ToolOutcome };

export interface AgentToolbox {
  specs(): ToolSpec[];
  /** `call` names the model's call, so a tool that must ask the user first can say which one. */
  execute(name: string, args: unknown, signal: AbortSignal, call?: ToolCallRef): Promise<ToolOutcome>;
  /** The same toolbox restricted to these tools (tool selection). */
  select(names: string[]): AgentToolbox;
}

/** One of the model's tool calls: its id and the iteration it came in (its `tool_call` step's). */
export interface ToolCallRef {
  id: string;
  iteration: number;
}

/** Follow-up messages the user sent while the run works, each drained once. */
export interface InterruptSource {
  drain(): Interrupt[];
  /** How many wait to be drained: a direct answer does not begin while one waits. */
  readonly size: number;
}

export interface StepRecord {
  tool: string;
  args: unknown;
  ok: boolean;
  observation: string;
  durationMs: number;
  /** The page or file the call read, numbered among the run's sources. */
  source?: Source;
}

export type AgentMode = "native" | "json";

export interface AgentResult {
  mode: AgentMode;
  /** The full history: system, user, every assistant message, every tool result. */
  messages: ChatMessage[];
  steps: StepRecord[];
  /** Every page and file the loop read, by number: what the answer's `[n]` cite. */
  sources: Source[];
  iterations: number;
  usage: Usage;
  /** The loop's own short answer; the fallback when synthesis fails. */
  answer: string;
  hitMaxIterations: boolean;
  /** The follow-ups the run took, in order: the answer is written for them too. */
  followUps: string[];
  /** The loop's first reply was the answer and went out through `onAnswer`: no synthesis. */
  direct: boolean;
}

export interface AgentLimits {
  maxIterations: number;
  maxToolRounds: number;
  maxToolContextChars: number;
  maxToolResultChars: number;
  toolSelectionThreshold: number;
  toolSelectionMax: number;
  synthesisTraceChars: number;
  /** Longest reply read for a tool call written as text (TOOL_CALL_TEXT_MAX_CHARS). */
  toolCallTextMaxChars: number;
}

export interface AgentOptions {
  /** The tool loop's model. */
  llm: LLM;
  /** The model that streams the answer; the loop's when not given. */
  synthesisLlm?: LLM;
  tools: AgentToolbox;
  limits: AgentLimits;
  language: PromptLanguage;
  /** How the loop calls tools, as `decideToolCalling` decided; by default the model's best way. */
  toolCalling?: AgentMode;
  onStep?: (step: AgentStep) => void;
  /** A compaction happened: the web layer shows a divider and keeps the summary. */
  onCompact?: (event: CompactionEvent) => void;
  interrupts?: InterruptSource;
  /**
   * Where a direct answer streams (the fast path): when set, a first reply without a tool call is
   * the answer, shown as it is written. Without it, every answer comes from synthesis.
   */
  onAnswer?: (part: AnswerPart) => void;
  /** The run's numbering of the sources read; a DAG run passes one list to every step. */
  sources?: SourceList;
  /** The model's thinking as it grows; the whole of it follows as a `thinking` step. */
  onThinking?: (delta: ThinkingDelta) => void;
}

export interface AgentInput {
  /** Role, date and the conversation's files; the engine adds the tool instructions. */
  system: string;
  /** The user's own instructions for the conversation: added to the loop's and synthesis's system prompts. */
  instructions?: string;
  /** Earlier turns as plain user/assistant text. */
  history: ChatMessage[];
  question: string;
  /** Base64 images sent with the question, for vision models. */
  images?: string[];
}
