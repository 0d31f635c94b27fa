import type { StreamPart } from "@/lib/llm/types";
import { emptyUsage } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import type { NoticeAbout } from "@/lib/protocol/run-events";
import { ContextGuard } from "./context-guard";
import { jsonModeInstructions, runJsonLoop } from "./json-mode";
import { runNativeLoop } from "./native-mode";
import { noticeText } from "./notices";
import { IterationLimitReached, RunState } from "./run-state";
import {
  type SynthesisOutcome,
  type SynthesisSink,
  streamSynthesis,
  synthesisMessages,
  writeSynthesis,
} from "./synthesis";
import { decideToolCalling } from "./tool-calling-mode";
import { selectTools } from "./tool-selection";
import type { AgentInput, AgentMode, AgentOptions, AgentResult, StepRecord } from "./types";
import { withUserInstructions } from "./user-instructions";

/**
 * The ReAct engine (docs/architecture.md, "One turn"): phase 1, the tool loop (native or JSON mode),
 * whose first reply is the answer when it calls no tool (`result.direct`, streamed through
 * `onAnswer`); phase 2, for turns that used tools, `streamAnswer`, a streamed synthesis over the trace. Framework-free: it
 * sees an LLM, a toolbox, a step sink and an interrupt source, nothing else.
 */
export class ReActAgent {
  private readonly guard: ContextGuard;

  constructor(private readonly options: AgentOptions) {
    this.guard = new ContextGuard({ llm: options.llm, language: options.language, onCompact: options.onCompact });
  }

  get mode(): AgentMode {
    const decided = decideToolCalling("auto", this.options.llm.abilities);
    return this.options.toolCalling ?? ("mode" in decided ? decided.mode : "json");
  }

  /** A notice step: the sentence in the run's language, and its data for the trail. */
  private notice(about: NoticeAbout): void {
    this.options.onStep?.({ type: "notice", iteration: 0, text: noticeText(this.options.language, about), about });
  }

  private fallbackSummary(steps: StepRecord[], iterations: number): string {
    const { language } = this.options;
    const lines = steps.map((step) =>
      prompt(language, "fallback_step", {
        tool: step.tool,
        status: step.ok
          ? prompt(language, "fallback_ok")
          : prompt(language, "fallback_failed", { reason: step.observation.slice(0, 120) }),
      }),
    );
    return prompt(language, "fallback_summary", {
      iterations: String(iterations),
      steps: lines.length > 0 ? lines.join("\n") : prompt(language, "fallback_none"),
    });
  }

  async run(input: AgentInput, signal: AbortSignal): Promise<AgentResult> {
    const { llm, limits, language } = this.options;
    const mode = this.mode;
    let selectionUsage = emptyUsage();
    let toolbox = this.options.tools;
    const allSpecs = toolbox.specs();
    if (allSpecs.length > limits.toolSelectionThreshold) {
      const selection = await selectTools(llm, allSpecs, {
        question: input.question,
        max: limits.toolSelectionMax,
        language,
        signal,
        onCut: ({ original, cut }) =>
          this.notice({
            code: "cut",
            what: "request",
            call: "tool_selection",
            kept: cut.content.length,
            total: original.content.length,
          }),
      });
      selectionUsage = selection.usage;
      if (selection.selected) toolbox = toolbox.select(selection.selected);
      this.options.onStep?.({
        type: "tool_selection",
        iteration: 0,
        selected: selection.selected ?? allSpecs.map((spec) => spec.name),
        total: allSpecs.length,
        // A failed selection is said as such, not shown as a choice of every tool.
        ...(selection.selected ? {} : { fellBack: true as const }),
        ...(selection.structured ? { structured: selection.structured } : {}),
      });
    }
    const specs = toolbox.specs();
    const loopState = new RunState({ ...this.options, tools: toolbox }, signal, this.guard);
    loopState.usage = selectionUsage;

    const system = [
      input.system,
      prompt(language, "tool_system"),
      mode === "json" ? jsonModeInstructions(language, specs) : "",
    ]
      .filter(Boolean)
      .join("\n\n");
    loopState.push({ role: "system", content: withUserInstructions(system, input.instructions, language) });
    for (const message of input.history) loopState.push(message);
    const images = llm.abilities.vision && input.images?.length ? { images: input.images } : {};
    loopState.push({ role: "user", content: input.question, ...images }, { as: "question" });

    let answer: string;
    let hitMaxIterations = false;
    try {
      answer = mode === "native" ? await runNativeLoop(loopState, specs) : await runJsonLoop(loopState, language);
    } catch (error) {
      if (!(error instanceof IterationLimitReached)) throw error;
      hitMaxIterations = true;
      loopState.notice({ code: "iteration_limit", iterations: loopState.iterations });
      answer = this.fallbackSummary(loopState.steps, loopState.iterations);
    }
    return {
      mode,
      messages: loopState.messages,
      steps: loopState.steps,
      sources: loopState.sources.all,
      iterations: loopState.iterations,
      usage: loopState.usage,
      answer,
      hitMaxIterations,
      direct: loopState.direct,
      followUps: loopState.followUps,
    };
  }

  async *streamAnswer(result: AgentResult, input: AgentInput, signal: AbortSignal): AsyncIterable<StreamPart> {
    const messages = synthesisMessages(result, {
      question: input.question,
      instructions: input.instructions,
      history: input.history,
      language: this.options.language,
      traceChars: this.options.limits.synthesisTraceChars,
    });
    const llm = this.options.synthesisLlm ?? this.options.llm;
    const guard = llm === this.options.llm ? this.guard : new ContextGuard({ llm, language: this.options.language });
    yield* streamSynthesis(llm, guard, messages, {
      images: input.images,
      signal,
      onNotice: (about) => this.notice(about),
    });
  }

  /**
   * Phase 2 to its end: the streamed synthesis into `sink`. A model failure is an outcome: what
   * streamed stands, or, when nothing did, the loop's own answer as a draft.
   */
  synthesize(
    result: AgentResult,
    input: AgentInput,
    signal: AbortSignal,
    sink: SynthesisSink,
  ): Promise<SynthesisOutcome> {
    return writeSynthesis(this.streamAnswer(result, input, signal), { draft: result.answer, signal, sink });
  }
}
