import { emptyUsage, type LLM } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type {
  ResearchBrief,
  ResearchBriefEvent,
  ResearchPhase,
  ResearchProgress,
  ResearchSectionStatus,
} from "@/lib/protocol/research";
import type { AnswerPart, ModelHint, NoticeAbout, ScopedStep, Source, ThinkingDelta } from "@/lib/protocol/run-events";
import type { CompactionEvent, MessageCut } from "../context-guard";
import { noticeText } from "../notices";
import { SourceList } from "../sources";
import type { AgentInput, AgentLimits, AgentResult, AgentToolbox } from "../types";
import { makeBrief } from "./brief";
import { briefText } from "./brief-text";
import { ResearchBudgets } from "./budget";
import { gather, type SectionFindings } from "./gather";
import { citedNumbers, referencesText, type WriteContext, writeSection, writeSummary } from "./write";

/**
 * Research mode (docs/research.md, "Research mode"): a run either proposes a brief (or asks up to
 * 3 clarifying questions) and ends, or researches a brief — gather, write, verify — streaming the
 * report section by section. Its progress goes out as `research` events whenever the phase or a
 * section changes. Stop rejects in every phase; what streamed stays the answer. Framework-free:
 * models, tools, the clock and the verification are passed in.
 */

export interface ResearchLimits {
  maxConcurrency: number;
  stepMaxIterations: number;
  /** RESEARCH_MAX_SOURCES */
  maxSources: number;
  /** RESEARCH_MAX_MINUTES, in ms. */
  maxMs: number;
}

export interface ResearchAgentOptions {
  /** The conversation's model: it writes the report. */
  llm: LLM;
  /** A role's model: the reasoning role makes the brief; null (the loop's model) gathers. */
  resolveLlm: (hint: ModelHint) => Promise<LLM>;
  tools: AgentToolbox;
  limits: AgentLimits;
  research: ResearchLimits;
  language: PromptLanguage;
  /** The clock the time budget is read from (Date.now by default). */
  now?: () => number;
  onStep?: (step: ScopedStep) => void;
  onThinking?: (delta: ThinkingDelta) => void;
  onCompact?: (event: CompactionEvent & { stepId?: string }) => void;
  onAnswer: (part: AnswerPart) => void;
  onBrief?: (brief: ResearchBriefEvent) => void;
  onProgress?: (progress: ResearchProgress) => void;
  /** The brief researched, once as gathering starts: stored with the run, so a resume knows its sections. */
  onResearch?: (brief: ResearchBrief) => void;
  /**
   * The verification of the written report (the citation check); the phase is `verifying` while it
   * runs. `claimsEnd`: where the report's claims end — the references after it cite, they claim nothing.
   */
  verify?: (report: string, signal: AbortSignal, claimsEnd: number) => Promise<void>;
}

/**
 * What an interrupted run of the same brief had done, which a resumed run keeps: the sections it
 * finished (their written text, heading included, by section id) and its sources, under the same
 * numbers (the kept sections' `[n]` name them), each with when it was read.
 */
export interface ResearchKept {
  sections: ReadonlyMap<string, string>;
  sources: Array<Source & { retrievedAt: number }>;
}

/**
 * What the run does: propose a brief (`ask`: clarifying questions allowed), or research one —
 * from the start, or (`kept`) from where an interrupted run of it stopped.
 */
export type ResearchStart =
  | { brief: ResearchBrief; kept?: ResearchKept }
  | { propose: { ask: boolean; thenResearch: boolean } };

interface SectionState {
  id: string;
  title: string;
  status: ResearchSectionStatus;
  sources: Set<number>;
  reason?: string;
}

export class ResearchAgent {
  private readonly sources = new SourceList();

  constructor(private readonly options: ResearchAgentOptions) {}

  private notice(about: NoticeAbout): void {
    this.options.onStep?.({ type: "notice", iteration: 0, text: noticeText(this.options.language, about), about });
  }

  private result(answer: string, iterations: number): AgentResult {
    return {
      mode: "json",
      messages: [],
      steps: [],
      sources: this.sources.all,
      iterations,
      usage: emptyUsage(),
      answer,
      hitMaxIterations: false,
      followUps: [],
      // The report went out through `onAnswer` as it was written: no synthesis follows.
      direct: true,
    };
  }

  private say(text: string): string {
    const { onAnswer } = this.options;
    onAnswer({ status: "start" });
    onAnswer({ status: "delta", content: text });
    onAnswer({ status: "done" });
    return text;
  }

  async run(input: AgentInput, signal: AbortSignal, start: ResearchStart): Promise<AgentResult> {
    const { options } = this;
    const { language } = options;
    let brief: ResearchBrief;
    let kept: ResearchKept | undefined;
    if ("brief" in start) ({ brief, kept } = start);
    else {
      this.options.onProgress?.(this.briefProgress());
      const made = await makeBrief({
        llm: await options.resolveLlm("reasoning"),
        question: input.question,
        history: input.history,
        allowQuestions: start.propose.ask,
        language,
        signal,
        onCut: ({ original, cut }: MessageCut) =>
          this.notice({
            code: "cut",
            what: "request",
            call: "brief",
            kept: cut.content.length,
            total: original.content.length,
          }),
      });
      options.onBrief?.(made.outcome);
      if (made.outcome.kind === "questions") {
        const list = made.outcome.questions.map((question, index) => `${index + 1}. ${question}`).join("\n");
        return this.result(this.say(prompt(language, "research_questions_text", { questions: list })), 0);
      }
      brief = made.outcome.brief;
      if (!start.propose.thenResearch) return this.result(this.say(briefText(brief, language)), 0);
    }
    return this.research(brief, input, signal, kept);
  }

  private briefProgress(): ResearchProgress {
    const { research } = this.options;
    return {
      phase: "brief",
      sections: [],
      done: 0,
      total: 0,
      sourcesRead: 0,
      maxSources: research.maxSources,
      elapsedMs: 0,
      maxMs: research.maxMs,
      budgetsReached: [],
    };
  }

  private async research(
    brief: ResearchBrief,
    input: AgentInput,
    signal: AbortSignal,
    kept?: ResearchKept,
  ): Promise<AgentResult> {
    const { options } = this;
    const { language, research } = options;
    const now = options.now ?? Date.now;
    options.onResearch?.(brief);
    // A resumed run goes on numbering after the kept sources, which count against its budget.
    for (const { retrievedAt: _, ...source } of kept?.sources ?? []) this.sources.all.push(source);
    const keptText = (id: string) => kept?.sections.get(id);
    const timeUp = new AbortController();
    const budgets = new ResearchBudgets({
      sources: this.sources,
      maxSources: research.maxSources,
      maxMs: research.maxMs,
      now,
      onReached: (budget) => {
        this.notice(
          budget === "time"
            ? { code: "research_budget", budget, minutes: Math.round(research.maxMs / 60_000) }
            : { code: "research_budget", budget, max: research.maxSources },
        );
        if (budget === "time") timeUp.abort();
        emit();
      },
    });
    for (const source of kept?.sources ?? []) budgets.accessedAt.set(source.n, source.retrievedAt);
    // The wall clock ends gathering even while every section waits on its model.
    const timer = setTimeout(() => budgets.timeUp(), Math.max(0, research.maxMs - budgets.elapsedMs));
    const states: SectionState[] = brief.sections.map((section) => {
      const text = keptText(section.id);
      return text === undefined
        ? { id: section.id, title: section.title, status: "pending", sources: new Set() }
        : { id: section.id, title: section.title, status: "written", sources: new Set(citedNumbers(text)) };
    });
    const stateOf = (id: string) => states.find((state) => state.id === id) as SectionState;
    let phase: ResearchPhase = "gathering";
    const emit = () =>
      options.onProgress?.({
        phase,
        sections: states.map((state) => ({
          id: state.id,
          title: state.title,
          status: state.status,
          sources: state.sources.size,
          ...(state.reason ? { reason: state.reason } : {}),
        })),
        done: states.filter(
          (state) => state.status === "written" || (phase !== "gathering" && state.status === "failed"),
        ).length,
        total: states.length,
        sourcesRead: budgets.sourcesRead,
        maxSources: research.maxSources,
        elapsedMs: budgets.elapsedMs,
        maxMs: research.maxMs,
        budgetsReached: budgets.budgetsReached,
      });
    emit();

    let findings: SectionFindings[];
    try {
      // Only the sections not kept are gathered.
      const open = brief.sections.filter((section) => keptText(section.id) === undefined);
      findings =
        open.length === 0
          ? []
          : await gather(open, {
              goal: brief.goal,
              system: input.system,
              instructions: input.instructions,
              tools: budgets.toolbox(options.tools, language),
              limits: options.limits,
              stepMaxIterations: research.stepMaxIterations,
              maxConcurrency: research.maxConcurrency,
              language,
              signal,
              timeSignal: timeUp.signal,
              budgets,
              sources: this.sources,
              resolveLlm: options.resolveLlm,
              onStep: options.onStep,
              onThinking: options.onThinking,
              onCompact: options.onCompact,
              onSection: (id, change) => {
                const state = stateOf(id);
                if ("status" in change) state.status = change.status;
                else if ("read" in change) state.sources.add(change.read);
                else {
                  state.status = change.findings.status;
                  if (change.findings.status === "failed") state.reason = change.findings.reason;
                }
                emit();
              },
            });
    } finally {
      clearTimeout(timer);
    }

    phase = "writing";
    emit();
    const write: WriteContext = {
      llm: options.llm,
      goal: brief.goal,
      instructions: input.instructions,
      language,
      signal,
      sources: this.sources.all,
      readChars: options.limits.synthesisTraceChars,
      onNotice: (about) => this.notice(about),
    };
    options.onAnswer({ status: "start" });
    let body = "";
    for (const section of brief.sections) {
      const text = keptText(section.id);
      if (text !== undefined) {
        // A kept section goes out as it was written, in its place in the brief.
        options.onAnswer({ status: "delta", content: text });
        body += text;
        continue;
      }
      const found = findings.find((finding) => finding.section.id === section.id);
      if (!found) continue;
      const state = stateOf(found.section.id);
      if (found.status === "gathered") state.status = "writing";
      emit();
      body += await writeSection(found, write, (content) => options.onAnswer({ status: "delta", content }));
      if (found.status === "gathered") state.status = "written";
      emit();
    }
    // The summary goes on top: the report is sent again whole, the sections as they streamed.
    const summary = await writeSummary(body, write);
    const references = referencesText(body, this.sources.all, budgets.accessedAt, language);
    const report = [
      `# ${brief.goal}\n\n`,
      summary ? `## ${prompt(language, "research_summary_heading")}\n\n${summary}\n\n` : "",
      body,
      references,
    ].join("");
    options.onAnswer({ status: "start" });
    options.onAnswer({ status: "delta", content: report });
    options.onAnswer({ status: "done" });

    if (options.verify) {
      phase = "verifying";
      emit();
      await options.verify(report, signal, report.length - references.length);
    }
    return this.result(report, 0);
  }
}
