import type { ChatMessage, ChatOptions, ChatResult, ToolCall, Usage } from "@/lib/llm/types";
import { addUsage, emptyUsage } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import type { AgentStep, AnswerPart, Artifact, Source } from "@/lib/protocol/run-events";
import { renderObservation, toolError } from "@/lib/tools/outcome";
import type { ContextGuard } from "./context-guard";
import { SourceList } from "./sources";
import type { AgentOptions, StepRecord } from "./types";

/**
 * The state of one run of the tool loop, shared by both modes: history, steps, usage, the
 * iteration count and the tool budgets (MAX_TOOL_ROUNDS ordinary rounds; paging calls
 * stop before the accumulated tool output would pass MAX_TOOL_CONTEXT_CHARS).
 */

export interface PlannedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface CallOutcome extends PlannedCall {
  /** What the model sees (artifacts replaced by their notice). */
  observation: string;
  ok: boolean;
  durationMs: number;
  source?: Source;
}

export class IterationLimitReached extends Error {}

const isPagingCall = (call: PlannedCall) =>
  typeof call.args.continue_from === "string" && call.args.continue_from.trim() !== "";

/** The UI previews HTML, Markdown and the images browsers show; any other file is not an artifact. */
const isPreviewable = (artifact: Artifact | undefined): artifact is Artifact =>
  artifact !== undefined && /^(text\/(html|markdown)|image\/(png|jpeg|gif|webp))$/.test(artifact.mimeType);

export class RunState {
  readonly messages: ChatMessage[] = [];
  /** Messages that compaction must keep: the question and injected interrupts. */
  readonly pinned = new Set<ChatMessage>();
  readonly steps: StepRecord[] = [];
  readonly sources: SourceList;
  usage: Usage = emptyUsage();
  iterations = 0;
  toolRounds = 0;
  toolContextChars = 0;
  /** Set once a budget is hit: the model has been told to answer with what it has. */
  budgetReason: string | null = null;
  /** The loop's answer went out through `onAnswer` as it was written (the fast path). */
  direct = false;
  private refusedCalls = false;
  private budgetAnnounced = false;

  constructor(
    private readonly options: AgentOptions,
    readonly signal: AbortSignal,
    private readonly guard: ContextGuard,
  ) {
    this.sources = options.sources ?? new SourceList();
  }

  emit(step: AgentStep) {
    this.options.onStep?.(step);
  }

  private say(key: Parameters<typeof prompt>[1], vars?: Record<string, string>) {
    return prompt(this.options.language, key, vars);
  }

  push(message: ChatMessage, { pinned = false } = {}): void {
    this.messages.push(message);
    if (pinned) this.pinned.add(message);
  }

  /** Where a direct answer may stream: only while no tool has run in this turn (the fast path). */
  get answerSink(): ((part: AnswerPart) => void) | null {
    return this.steps.length === 0 && !this.toolsDisabled ? (this.options.onAnswer ?? null) : null;
  }

  /**
   * One LLM call of the loop, streamed: counted against MAX_ITERATIONS, usage summed, thinking
   * shown as it grows and then whole, text handed to `onText` as it arrives.
   */
  async callModel(chatOptions: ChatOptions, onText?: (delta: string) => void): Promise<ChatResult> {
    if (this.iterations >= this.options.limits.maxIterations) throw new IterationLimitReached();
    this.iterations++;
    const iteration = this.iterations;
    // The tool schemas travel with the messages and take context too.
    const extraText = chatOptions.tools ? JSON.stringify(chatOptions.tools) : "";
    const fitted = await this.guard.fit(this.messages, this.pinned, {
      hint: "react_iteration",
      signal: this.signal,
      extraText,
    });
    if (fitted !== this.messages) this.messages.splice(0, this.messages.length, ...fitted);
    let content = "";
    let reasoning = "";
    let thinkingStarted = 0;
    let thinkingMs = 0;
    const toolCalls: ToolCall[] = [];
    let usage = emptyUsage();
    const endThinking = () => {
      if (thinkingStarted && !thinkingMs) thinkingMs = Math.max(1, Date.now() - thinkingStarted);
    };
    for await (const part of this.options.llm.streamReply(this.messages, { ...chatOptions, signal: this.signal })) {
      switch (part.type) {
        case "reasoning":
          thinkingStarted ||= Date.now();
          reasoning += part.text;
          this.options.onThinking?.({ iteration, delta: part.text });
          break;
        case "text":
          endThinking();
          content += part.text;
          onText?.(part.text);
          break;
        case "tool-call":
          endThinking();
          toolCalls.push(part.call);
          break;
        case "finish":
          endThinking();
          usage = part.usage;
          break;
      }
    }
    endThinking();
    this.guard.observe(this.messages, usage.inputTokens, extraText);
    this.usage = addUsage(this.usage, usage);
    if (reasoning.trim()) this.emit({ type: "thinking", iteration, text: reasoning, durationMs: thinkingMs });
    return { content, toolCalls, reasoning, usage };
  }

  /** Why a call may not run now, or null. */
  private refusal(call: PlannedCall, roundOpen: boolean): string | null {
    const { limits } = this.options;
    if (isPagingCall(call)) {
      return this.toolContextChars + limits.maxToolResultChars > limits.maxToolContextChars
        ? this.say("tool_limit_context", { chars: String(this.toolContextChars) })
        : null;
    }
    return !roundOpen && this.toolRounds >= limits.maxToolRounds
      ? this.say("tool_limit_rounds", { rounds: String(limits.maxToolRounds) })
      : null;
  }

  /**
   * Runs one response's calls in parallel and returns their outcomes in call order (never in
   * finishing order). Calls over budget are not run and get a "not executed" observation.
   */
  async runCalls(calls: PlannedCall[]): Promise<CallOutcome[]> {
    const iteration = this.iterations;
    const roundOpen = this.toolRounds < this.options.limits.maxToolRounds;
    if (roundOpen && calls.some((call) => !isPagingCall(call))) this.toolRounds++;
    const refusals = calls.map((call) => this.refusal(call, roundOpen));
    const outcomes = await Promise.all(
      calls.map(async (call, index): Promise<CallOutcome> => {
        this.emit({ type: "tool_call", iteration, callId: call.id, tool: call.name, args: call.args });
        const started = Date.now();
        const refused = refusals[index] !== null;
        const outcome = refused
          ? toolError("not_run", this.say("tool_not_run"))
          : await this.options.tools.execute(call.name, call.args, this.signal);
        const artifact = outcome.ok && isPreviewable(outcome.artifact) ? outcome.artifact : undefined;
        // The model reads the notice instead of the file, then any text the tool wrote beside it.
        const observation = artifact
          ? [this.say("artifact", { filename: artifact.filename }), renderObservation(outcome)]
              .filter(Boolean)
              .join("\n\n")
          : renderObservation(outcome);
        const paging = outcome.ok && !artifact ? outcome.paging : undefined;
        const source = outcome.ok && outcome.source ? this.sources.cite(outcome.source) : undefined;
        const results = outcome.ok ? outcome.results : undefined;
        const { ok } = outcome;
        const durationMs = Date.now() - started;
        this.emit({
          type: "tool_result",
          iteration,
          callId: call.id,
          tool: call.name,
          ok,
          observation,
          ...(paging ? { paging } : {}),
          durationMs,
          ...(artifact ? { artifact } : {}),
          ...(source ? { source } : {}),
          ...(results ? { results } : {}),
        });
        return { ...call, observation, ok, durationMs, ...(source ? { source } : {}) };
      }),
    );
    for (const { name, args, ok, observation, durationMs, source } of outcomes) {
      this.steps.push({ tool: name, args, ok, observation, durationMs, ...(source ? { source } : {}) });
    }
    this.toolContextChars += outcomes.reduce((sum, outcome) => sum + outcome.observation.length, 0);
    const refusal = refusals.find((reason) => reason !== null);
    if (refusal) this.refusedCalls = true;
    const exhausted = this.toolRounds >= this.options.limits.maxToolRounds;
    const reason =
      refusal ??
      (exhausted ? this.say("tool_limit_rounds", { rounds: String(this.options.limits.maxToolRounds) }) : null);
    if (reason && !this.budgetReason) {
      this.budgetReason = reason;
      this.emit({ type: "notice", iteration, text: reason });
    }
    return outcomes;
  }

  /** Once the model ignored the tool-limit message, it gets no tools at all. */
  get toolsDisabled(): boolean {
    return this.refusedCalls;
  }

  /** Appends, once, the user message telling the model to answer with what it has. */
  announceBudget(): void {
    if (!this.budgetReason || this.budgetAnnounced) return;
    this.budgetAnnounced = true;
    this.push({ role: "user", content: this.say("tool_limit", { reason: this.budgetReason }) });
  }

  /** Merges every queued interrupt into one pinned user message, or returns false. */
  drainInterrupts(): boolean {
    const interrupts = this.options.interrupts?.drain() ?? [];
    if (interrupts.length === 0) return false;
    const texts = interrupts.map((interrupt) => interrupt.text);
    const text = texts.length === 1 ? (texts[0] as string) : texts.map((t, i) => `${i + 1}. ${t}`).join("\n");
    this.push({ role: "user", content: this.say("interrupt", { text }) }, { pinned: true });
    this.emit({ type: "interrupt", iteration: this.iterations, interrupts });
    return true;
  }
}
