import type { ChatMessage, ChatOptions, ChatResult, ToolCall, Usage } from "@/lib/llm/types";
import { addUsage, emptyUsage } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import type { AgentStep, AnswerPart, Artifact, NoticeAbout, Source } from "@/lib/protocol/run-events";
import { renderObservation, toolError } from "@/lib/tools/outcome";
import type { ContextGuard, MessageCut } from "./context-guard";
import { noticeText } from "./notices";
import { SourceList } from "./sources";
import { cleanToolName, resolveToolName, withThinkingSplit } from "./tool-call-forms";
import type { AgentOptions, StepRecord } from "./types";

/**
 * The state of one run of the tool loop, shared by both modes: history, steps, usage, the
 * iteration count and the tool budgets (MAX_TOOL_ROUNDS ordinary rounds; paging calls
 * stop before the accumulated tool output would pass MAX_TOOL_CONTEXT_CHARS, each call of a reply
 * reserving its share in call order). The question and the follow-ups are pinned: compaction keeps
 * them, and a pin moves to the cut copy when one has to be cut. Nothing is cut or stopped without a
 * `notice` step that says so (docs/engine.md, "Pins, budgets and notices"). Over 300 lines on
 * purpose: history, pins and budgets change together at each step, and their rules hold in one place.
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

/** One reply's way to the screen on the fast path (`RunState.openAnswer`). */
export interface AnswerSink {
  emit(part: AnswerPart): void;
  /** A follow-up waited when the answer would have begun: nothing was shown, the answer is suppressed. */
  readonly withheld: boolean;
}

/** What a message of the loop is to the user: the question and follow-ups are pinned; each gets a notice when cut. */
export type MessageRole = { as: "question" } | { as: "follow_up" } | { as: "tool_result"; tool: string };

/** The tool budget a call ran into: MAX_TOOL_CONTEXT_CHARS for paging calls, MAX_TOOL_ROUNDS for others. */
type Budget = "context" | "rounds";

const isPagingCall = (call: PlannedCall) =>
  typeof call.args.continue_from === "string" && call.args.continue_from.trim() !== "";

/** The UI previews HTML, Markdown and the images browsers show; any other file is not an artifact. */
const isPreviewable = (artifact: Artifact | undefined): artifact is Artifact =>
  artifact !== undefined && /^(text\/(html|markdown)|image\/(png|jpeg|gif|webp))$/.test(artifact.mimeType);

export class RunState {
  readonly messages: ChatMessage[] = [];
  /** Messages that compaction must keep: the question and injected interrupts. */
  readonly pinned = new Set<ChatMessage>();
  /** The follow-ups the loop took, in order: synthesis sees them all. */
  readonly followUps: string[] = [];
  private readonly roles = new Map<ChatMessage, MessageRole>();
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

  /** A prompt text in the run's language. */
  say(key: Parameters<typeof prompt>[1], vars?: Record<string, string>) {
    return prompt(this.options.language, key, vars);
  }

  /** A notice step: the data, and the sentence in the run's language. */
  notice(about: NoticeAbout): void {
    this.emit({ type: "notice", iteration: this.iterations, text: noticeText(this.options.language, about), about });
  }

  push(message: ChatMessage, role?: MessageRole): void {
    this.messages.push(message);
    if (!role) return;
    this.roles.set(message, role);
    if (role.as !== "tool_result") this.pinned.add(message);
  }

  /** A message was cut to fit: its pin and role move to the cut copy, and the trail says what was cut. */
  private readonly onCut = ({ original, cut }: MessageCut): void => {
    if (this.pinned.delete(original)) this.pinned.add(cut);
    const role = this.roles.get(original);
    if (!role) return;
    this.roles.delete(original);
    this.roles.set(cut, role);
    this.notice({
      code: "cut",
      what: role.as,
      ...(role.as === "tool_result" ? { tool: role.tool } : {}),
      kept: cut.content.length,
      total: original.content.length,
    });
  };

  /**
   * Where one reply's direct answer may stream: only while no tool has run in this turn (the fast
   * path). An answer is pending until its first character is shown; if a follow-up waits at that
   * moment, nothing of the reply is shown (`withheld`) and the loop takes the follow-up instead.
   * An answer already on screen stands, whatever arrives after.
   */
  openAnswer(): AnswerSink | null {
    const onAnswer = this.options.onAnswer;
    if (!onAnswer || this.steps.length > 0 || this.toolsDisabled) return null;
    const interrupts = this.options.interrupts;
    let state: "pending" | "shown" | "withheld" = "pending";
    return {
      emit: (part) => {
        if (state === "pending") state = (interrupts?.size ?? 0) > 0 ? "withheld" : "shown";
        if (state === "shown") onAnswer(part);
      },
      get withheld() {
        return state === "withheld";
      },
    };
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
      onCut: this.onCut,
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
    // Thinking written into the text (`<think>`, harmony's analysis) is thinking, not the answer.
    const stream = withThinkingSplit(
      this.options.llm.streamReply(this.messages, { ...chatOptions, signal: this.signal }),
    );
    for await (const part of stream) {
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

  /**
   * Which budget forbids a call now, or null. `reserved` is what the results so far and the calls
   * admitted before this one in the same reply may take: MAX_TOOL_RESULT_CHARS each.
   */
  private refusal(call: PlannedCall, roundOpen: boolean, reserved: number): Budget | null {
    const { limits } = this.options;
    if (isPagingCall(call)) {
      return reserved + limits.maxToolResultChars > limits.maxToolContextChars ? "context" : null;
    }
    return !roundOpen && this.toolRounds >= limits.maxToolRounds ? "rounds" : null;
  }

  /** The budget in the words the model reads (inside `tool_limit`); `chars` is what the results before this reply took. */
  private budgetForModel(budget: Budget, chars: number): string {
    return budget === "context"
      ? this.say("tool_limit_context", { chars: String(chars) })
      : this.say("tool_limit_rounds", { rounds: String(this.options.limits.maxToolRounds) });
  }

  /** The budget as the trail's notice says it. */
  private budgetNotice(budget: Budget, chars: number): NoticeAbout {
    const { limits } = this.options;
    return budget === "context"
      ? { code: "tool_budget", budget, limit: limits.maxToolContextChars, chars }
      : { code: "tool_budget", budget, rounds: limits.maxToolRounds };
  }

  /**
   * Runs one response's calls in parallel and returns their outcomes in call order (never in
   * finishing order). Calls over budget are not run and get a "not executed" observation.
   */
  async runCalls(planned: PlannedCall[]): Promise<CallOutcome[]> {
    const iteration = this.iterations;
    const { limits } = this.options;
    const names = this.toolNames;
    // A name the model got slightly wrong runs the tool it unambiguously meant; any other stays
    // unknown, without harmony tokens, and its outcome lists the tools it may call.
    const calls = planned.map((call) => ({
      ...call,
      name: resolveToolName(call.name, names) ?? cleanToolName(call.name),
    }));
    const roundOpen = this.toolRounds < limits.maxToolRounds;
    if (roundOpen && calls.some((call) => !isPagingCall(call))) this.toolRounds++;
    const charsBefore = this.toolContextChars;
    // Parallel calls are admitted one by one in call order, each reserving a whole result.
    let reserved = charsBefore;
    const refusals = calls.map((call) => {
      const refusal = this.refusal(call, roundOpen, reserved);
      if (refusal === null) reserved += limits.maxToolResultChars;
      return refusal;
    });
    const outcomes = await Promise.all(
      calls.map(async (call, index): Promise<CallOutcome> => {
        this.emit({ type: "tool_call", iteration, callId: call.id, tool: call.name, args: call.args });
        const started = Date.now();
        const refused = refusals[index] !== null;
        const outcome = refused
          ? toolError("not_run", this.say("tool_not_run"))
          : await this.options.tools.execute(call.name, call.args, this.signal, { id: call.id, iteration });
        const artifact = outcome.ok && isPreviewable(outcome.artifact) ? outcome.artifact : undefined;
        // The model reads the notice instead of the file, then any text the tool wrote beside it.
        const observation = artifact
          ? [this.say("artifact", { filename: artifact.filename }), renderObservation(outcome)]
              .filter(Boolean)
              .join("\n\n")
          : renderObservation(outcome);
        // The page's text is the output; the footer the model read follows it.
        const paging =
          outcome.ok && !artifact && outcome.paging
            ? { ...outcome.paging, bodyChars: outcome.output.length }
            : undefined;
        const source = outcome.ok && outcome.source ? this.sources.cite(outcome.source) : undefined;
        const results = outcome.ok ? outcome.results : undefined;
        const memory = outcome.ok ? outcome.memory : undefined;
        const { ok } = outcome;
        const durationMs = Date.now() - started;
        this.emit({
          type: "tool_result",
          iteration,
          callId: call.id,
          tool: call.name,
          ok,
          ...(outcome.ok ? {} : { errorKind: outcome.error.kind }),
          observation,
          ...(paging ? { paging } : {}),
          durationMs,
          ...(artifact ? { artifact } : {}),
          ...(source ? { source } : {}),
          ...(outcome.ok && outcome.pages ? { pages: outcome.pages } : {}),
          ...(results ? { results } : {}),
          ...(memory ? { memory } : {}),
        });
        return { ...call, observation, ok, durationMs, ...(source ? { source } : {}) };
      }),
    );
    for (const { name, args, ok, observation, durationMs, source } of outcomes) {
      this.steps.push({ tool: name, args, ok, observation, durationMs, ...(source ? { source } : {}) });
    }
    this.toolContextChars += outcomes.reduce((sum, outcome) => sum + outcome.observation.length, 0);
    const refusal = refusals.find((budget) => budget !== null);
    if (refusal) this.refusedCalls = true;
    const budget = refusal ?? (this.toolRounds >= limits.maxToolRounds ? "rounds" : null);
    if (budget && !this.budgetReason) {
      this.budgetReason = this.budgetForModel(budget, charsBefore);
      this.notice(this.budgetNotice(budget, charsBefore));
    }
    return outcomes;
  }

  /** The names of the tools offered in this run. */
  get toolNames(): string[] {
    return this.options.tools.specs().map((spec) => spec.name);
  }

  /** Longest reply read for a tool call written as text. */
  get toolCallTextMaxChars(): number {
    return this.options.limits.toolCallTextMaxChars;
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
    this.push({ role: "user", content: this.say("interrupt", { text }) }, { as: "follow_up" });
    this.followUps.push(...texts);
    this.emit({ type: "interrupt", iteration: this.iterations, interrupts });
    return true;
  }
}
