import type { LLM, StreamPart } from "@/lib/llm/types";
import { addUsage, emptyUsage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type {
  AnswerPart,
  ModelHint,
  NoticeAbout,
  Plan,
  PlanProblem,
  PlanStep,
  ScopedStep,
  StepProgress,
  ThinkingDelta,
  Verdict,
} from "@/lib/protocol/run-events";
import { type CompactionEvent, ContextGuard, type MessageCut } from "../context-guard";
import { describeProblem, noticeText } from "../notices";
import { ReActAgent } from "../react-agent";
import { SourceList } from "../sources";
import {
  type SynthesisOutcome,
  type SynthesisSink,
  sourcesSection,
  streamSynthesis,
  synthesisRequest,
  writeSynthesis,
} from "../synthesis";
import { decideToolCalling } from "../tool-calling-mode";
import type { AgentInput, AgentLimits, AgentResult, AgentToolbox, InterruptSource } from "../types";
import { analyze } from "./analyzer";
import { executePlan } from "./executor";
import { makePlan } from "./planner";
import { IterationBudget, runStep, type StepRun } from "./step-runner";
import { formatResults } from "./trace";

/**
 * DAG mode (docs/engine.md, "DAG mode"): a planner breaks the goal into steps, the executor
 * runs them as parallel ReAct agents, an analyzer judges the results and may ask for one more
 * round, then synthesis streams the answer from every step's result. A plan that cannot be made
 * (twice) falls back to the plain ReAct agent on the whole question, and the user is told.
 * Framework-free like the ReAct engine: models, tools, interrupts and sinks are passed in.
 */

export interface DagLimits {
  maxConcurrency: number;
  maxReplans: number;
  maxSteps: number;
  stepMaxIterations: number;
  runMaxIterations: number;
  dependencyChars: number;
}

export interface DagAgentOptions {
  /** The conversation's model: it writes the answer, and answers alone when no plan can be made. */
  llm: LLM;
  /** A model role's model, read when asked (a role changed mid-run applies from then on); null → `llm`. */
  resolveLlm: (hint: ModelHint) => Promise<LLM>;
  tools: AgentToolbox;
  limits: AgentLimits;
  dag: DagLimits;
  language: PromptLanguage;
  interrupts?: InterruptSource;
  onStep?: (step: ScopedStep) => void;
  onThinking?: (delta: ThinkingDelta) => void;
  onCompact?: (event: CompactionEvent & { stepId?: string }) => void;
  /** Where the fallback agent's direct answer streams. */
  onAnswer?: (part: AnswerPart) => void;
  onPlan?: (plan: Plan) => void;
  onStepProgress?: (progress: StepProgress) => void;
}

export class DagAgent {
  /** Set when no plan could be made: it answered, and writes the answer. */
  private fallback: ReActAgent | undefined;
  private runs: StepRun[] = [];
  private followUps: string[] = [];
  private draft: string | null = null;
  /** One numbering for the sources every step reads. */
  private readonly sources = new SourceList();

  constructor(private readonly options: DagAgentOptions) {}

  /** A notice step: the sentence in the run's language, and its data for the trail. */
  private notice(about: NoticeAbout) {
    this.options.onStep?.({ type: "notice", iteration: 0, text: noticeText(this.options.language, about), about });
  }

  /** The planner's or analyzer's request was cut to fit its model: the trail says so. */
  private cutNotice(call: "planner" | "analyzer") {
    return ({ original, cut }: MessageCut) =>
      this.notice({ code: "cut", what: "request", call, kept: cut.content.length, total: original.content.length });
  }

  /** Plans once, and once more with the problem when the plan cannot be used; null when neither can. */
  private async plan(input: AgentInput, signal: AbortSignal, takenIds: Set<string>, feedback: string | undefined) {
    const { language, tools, dag } = this.options;
    let usage = emptyUsage();
    // Read only once an attempt has set it.
    let problem: PlanProblem = { kind: "empty" };
    for (let attempt = 0; attempt < 2; attempt++) {
      const planned = await makePlan({
        llm: await this.options.resolveLlm("reasoning"),
        goal: input.question,
        history: input.history,
        tools: tools.specs(),
        maxSteps: dag.maxSteps,
        takenIds,
        feedback:
          attempt === 0
            ? feedback
            : prompt(language, "dag_replan_problem", { problem: describeProblem(language, problem) }),
        language,
        signal,
        onCut: this.cutNotice("planner"),
      });
      usage = addUsage(usage, planned.usage);
      if (planned.check.ok) return { steps: planned.check.steps, usage, problem, structured: planned.structured };
      problem = planned.check.problem;
    }
    return { steps: null, usage, problem };
  }

  async run(input: AgentInput, signal: AbortSignal): Promise<AgentResult> {
    const { options } = this;
    const { dag, language } = options;
    const interrupts: InterruptSource = {
      drain: () => {
        const drained = options.interrupts?.drain() ?? [];
        this.followUps.push(...drained.map((interrupt) => interrupt.text));
        return drained;
      },
      get size() {
        return options.interrupts?.size ?? 0;
      },
    };
    const budget = new IterationBudget(dag.runMaxIterations);
    const takenIds = new Set<string>();
    let usage = emptyUsage();
    let feedback: string | undefined;
    /** Why a re-plan was asked for: shown on its plan card. */
    let verdict: Verdict | undefined;

    for (let round = 1; round <= 1 + dag.maxReplans; round++) {
      const planned = await this.plan(input, signal, takenIds, feedback);
      usage = addUsage(usage, planned.usage);
      if (!planned.steps) {
        if (round > 1) break;
        return this.answerAlone(input, signal, planned.problem, usage);
      }
      // A plan has 2 to DAG_MAX_STEPS steps: a first plan of one step is the plain ReAct agent's work.
      // (A later round's single step adds to the steps already done, and runs.)
      if (round === 1 && planned.steps.length < 2) {
        return this.answerAlone(input, signal, { kind: "single" }, usage);
      }
      for (const step of planned.steps) takenIds.add(step.id);
      options.onPlan?.({
        round,
        steps: planned.steps,
        ...(verdict ? { verdict } : {}),
        ...(planned.structured ? { structured: planned.structured } : {}),
      });
      const runs = await this.execute(planned.steps, input, signal, budget, interrupts);
      this.runs.push(...runs);
      for (const run of runs) usage = addUsage(usage, run.usage);

      // Follow-ups no step took reach the analyzer.
      const late = interrupts.drain();
      if (late.length > 0) options.onStep?.({ type: "interrupt", iteration: 0, interrupts: late });
      const judged = await analyze({
        llm: await options.resolveLlm("reasoning"),
        goal: input.question,
        results: formatResults(this.runs, language, dag.dependencyChars),
        followUps: this.followUps,
        language,
        signal,
        onCut: this.cutNotice("analyzer"),
      });
      usage = addUsage(usage, judged.usage);
      this.draft = judged.analysis.finalAnswer;
      if (judged.analysis.achieved) break;
      const { achieved, confidence, reasoning } = judged.analysis;
      verdict = { achieved, confidence, reasoning };
      feedback = prompt(language, "dag_replan_findings", {
        findings: formatResults(this.runs, language, dag.dependencyChars),
        reasoning: judged.analysis.reasoning,
      });
    }
    const decided = decideToolCalling("auto", options.llm.abilities);
    return {
      mode: "mode" in decided ? decided.mode : "json",
      messages: [],
      steps: this.runs.flatMap((run) => run.records),
      iterations: this.runs.reduce((sum, run) => sum + run.iterations, 0),
      usage,
      answer: this.draft ?? formatResults(this.runs, language, options.limits.synthesisTraceChars),
      sources: this.sources.all,
      hitMaxIterations: false,
      followUps: this.followUps,
      direct: false,
    };
  }

  private execute(
    steps: PlanStep[],
    input: AgentInput,
    signal: AbortSignal,
    budget: IterationBudget,
    interrupts: InterruptSource,
  ): Promise<StepRun[]> {
    const { options } = this;
    const context = {
      goal: input.question,
      system: input.system,
      instructions: input.instructions,
      tools: options.tools,
      limits: options.limits,
      stepMaxIterations: options.dag.stepMaxIterations,
      dependencyChars: options.dag.dependencyChars,
      budget,
      language: options.language,
      signal,
      resolveLlm: options.resolveLlm,
      interrupts,
      sources: this.sources,
      onStep: options.onStep,
      onThinking: options.onThinking,
      onCompact: options.onCompact,
      onProgress: options.onStepProgress,
    };
    return executePlan(steps, {
      maxConcurrency: options.dag.maxConcurrency,
      signal,
      canStart: () => budget.left > 0,
      runStep: (step, dependencies) => runStep(step, dependencies, context),
      skip: (step) => {
        const result = prompt(options.language, "dag_dependency_failed");
        options.onStepProgress?.({ stepId: step.id, status: "skipped", model: "", result, at: Date.now() });
        return { step, status: "skipped", model: "", result, iterations: 0, usage: emptyUsage(), records: [] };
      },
    });
  }

  /** No plan: the plain ReAct agent answers the whole question, and the user is told why. */
  private async answerAlone(input: AgentInput, signal: AbortSignal, problem: PlanProblem, usage: AgentResult["usage"]) {
    const { options } = this;
    this.notice({ code: "dag_fallback", problem });
    this.fallback = new ReActAgent({
      llm: options.llm,
      tools: options.tools,
      limits: options.limits,
      language: options.language,
      interrupts: options.interrupts,
      onStep: options.onStep,
      onThinking: options.onThinking,
      onCompact: options.onCompact,
      onAnswer: options.onAnswer,
    });
    const result = await this.fallback.run(input, signal);
    return { ...result, usage: addUsage(usage, result.usage) };
  }

  async *streamAnswer(result: AgentResult, input: AgentInput, signal: AbortSignal): AsyncIterable<StreamPart> {
    if (this.fallback) {
      yield* this.fallback.streamAnswer(result, input, signal);
      return;
    }
    const { llm, language, limits } = this.options;
    const parts = [formatResults(this.runs, language, limits.synthesisTraceChars)];
    if (this.draft) parts.push(prompt(language, "synthesis_draft", { answer: this.draft }));
    const sources = sourcesSection(this.sources.all, language);
    if (sources) parts.push(sources);
    const messages = synthesisRequest({
      question: input.question,
      followUps: this.followUps,
      trace: parts.join("\n\n"),
      instructions: input.instructions,
      history: input.history,
      language,
    });
    yield* streamSynthesis(llm, new ContextGuard({ llm, language }), messages, {
      images: input.images,
      signal,
      onNotice: (about) => this.notice(about),
    });
  }

  /** The streamed answer, with ReAct mode's handling of a synthesis that fails (the draft, or what streamed). */
  synthesize(
    result: AgentResult,
    input: AgentInput,
    signal: AbortSignal,
    sink: SynthesisSink,
  ): Promise<SynthesisOutcome> {
    return writeSynthesis(this.streamAnswer(result, input, signal), { draft: result.answer, signal, sink });
  }
}
