import { emptyUsage, type LLM, type Usage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { ResearchSection } from "@/lib/protocol/research";
import type { ModelHint, PlanStep, ScopedStep, ThinkingDelta } from "@/lib/protocol/run-events";
import type { CompactionEvent } from "../context-guard";
import { executePlan } from "../dag/executor";
import type { StepRun } from "../dag/step-runner";
import { ReActAgent } from "../react-agent";
import type { SourceList } from "../sources";
import type { AgentLimits, AgentToolbox } from "../types";
import type { ResearchBudgets } from "./budget";

/**
 * Gathering (docs/research.md, "Research mode"): each section of the brief is a step of the DAG
 * executor (no dependencies: up to DAG_MAX_CONCURRENCY at once), a fresh ReAct agent with the
 * run's budgeted tools and the run's one SourceList. What a section found is what its tool calls
 * read (each with its source number) and the agent's own report. A section that read no source,
 * failed, or that the time budget ended before it read anything, has failed: the report says so.
 * When the time is up, running sections are cut off and keep what they read; sections not started
 * are not researched. Stop rejects at once.
 */

export interface SectionRead {
  n: number;
  text: string;
}

export type SectionFindings =
  | { section: ResearchSection; status: "gathered"; notes: string; reads: SectionRead[] }
  | { section: ResearchSection; status: "failed"; reason: string; reads: SectionRead[] };

export interface GatherContext {
  goal: string;
  system: string;
  instructions?: string;
  tools: AgentToolbox;
  limits: AgentLimits;
  /** Model calls one section's agent may make (DAG_STEP_MAX_ITERATIONS). */
  stepMaxIterations: number;
  maxConcurrency: number;
  language: PromptLanguage;
  /** Stop: rejects gathering at once. */
  signal: AbortSignal;
  /** Aborted when the time budget is up: running sections end with what they read. */
  timeSignal: AbortSignal;
  budgets: ResearchBudgets;
  sources: SourceList;
  resolveLlm: (hint: ModelHint) => Promise<LLM>;
  onStep?: (step: ScopedStep) => void;
  onThinking?: (delta: ThinkingDelta) => void;
  onCompact?: (event: CompactionEvent & { stepId?: string }) => void;
  /** A section started, read a source, or ended. */
  onSection: (id: string, change: { status: "gathering" } | { read: number } | { findings: SectionFindings }) => void;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function sectionQuery(section: ResearchSection, context: GatherContext): string {
  return prompt(context.language, "research_section_query", {
    goal: context.goal,
    title: section.title,
    questions: section.questions.map((question) => `- ${question}`).join("\n"),
  });
}

async function gatherSection(
  section: ResearchSection,
  context: GatherContext,
): Promise<{ findings: SectionFindings; model: string; iterations: number; usage: Usage }> {
  const { language, signal } = context;
  const reads: SectionRead[] = [];
  const failed = (reason: string): SectionFindings => ({ section, status: "failed", reason, reads });
  if (context.timeSignal.aborted) {
    return {
      findings: failed(prompt(language, "research_reason_time")),
      model: "",
      iterations: 0,
      usage: emptyUsage(),
    };
  }
  let llm: LLM;
  try {
    llm = await context.resolveLlm(null);
  } catch (error) {
    if (signal.aborted) throw error;
    return { findings: failed(errorText(error)), model: "", iterations: 0, usage: emptyUsage() };
  }
  context.onSection(section.id, { status: "gathering" });
  const agent = new ReActAgent({
    llm,
    tools: context.tools,
    limits: { ...context.limits, maxIterations: context.stepMaxIterations },
    language,
    sources: context.sources,
    onStep: (step) => {
      context.onStep?.({ ...step, stepId: section.id });
      if (step.type === "tool_result" && step.ok && step.source) {
        reads.push({ n: step.source.n, text: step.observation });
        context.onSection(section.id, { read: step.source.n });
      }
    },
    onThinking: (delta) => context.onThinking?.({ ...delta, stepId: section.id }),
    onCompact: (event) => context.onCompact?.({ ...event, stepId: section.id }),
  });
  const sectionSignal = AbortSignal.any([signal, context.timeSignal]);
  try {
    const result = await agent.run(
      {
        system: context.system,
        instructions: context.instructions,
        history: [],
        question: sectionQuery(section, context),
      },
      sectionSignal,
    );
    const findings: SectionFindings =
      reads.length > 0
        ? { section, status: "gathered", notes: result.answer.trim(), reads }
        : failed(
            prompt(
              language,
              context.budgets.budgetsReached.includes("sources")
                ? "research_reason_sources"
                : "research_reason_no_sources",
            ),
          );
    return { findings, model: llm.model, iterations: result.iterations, usage: result.usage };
  } catch (error) {
    if (signal.aborted) throw error;
    // Cut off by the time budget: what it read stands.
    const cutOff = context.timeSignal.aborted;
    const findings: SectionFindings =
      cutOff && reads.length > 0
        ? { section, status: "gathered", notes: "", reads }
        : failed(cutOff ? prompt(language, "research_reason_time") : errorText(error));
    return { findings, model: llm.model, iterations: 0, usage: emptyUsage() };
  }
}

/** Every section's findings, in the brief's order. */
export async function gather(sections: ResearchSection[], context: GatherContext): Promise<SectionFindings[]> {
  const found = new Map<string, SectionFindings>();
  const steps: PlanStep[] = sections.map((section) => ({
    id: section.id,
    task: section.title,
    dependencies: [],
    tool_hint: null,
    model_hint: null,
  }));
  const byId = new Map(sections.map((section) => [section.id, section]));
  await executePlan(steps, {
    maxConcurrency: context.maxConcurrency,
    signal: context.signal,
    canStart: () => true,
    runStep: async (step): Promise<StepRun> => {
      const { findings, model, iterations, usage } = await gatherSection(byId.get(step.id) as ResearchSection, context);
      found.set(step.id, findings);
      context.onSection(step.id, { findings });
      const result = findings.status === "gathered" ? findings.notes : findings.reason;
      return {
        step,
        status: findings.status === "gathered" ? "done" : "failed",
        model,
        result,
        iterations,
        usage,
        records: [],
      };
    },
    // Sections have no dependencies: none is ever skipped.
    skip: (step) => ({
      step,
      status: "skipped",
      model: "",
      result: "",
      iterations: 0,
      usage: emptyUsage(),
      records: [],
    }),
  });
  return sections.map((section) => found.get(section.id) as SectionFindings);
}
