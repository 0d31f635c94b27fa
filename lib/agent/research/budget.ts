import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { ResearchBudget } from "@/lib/protocol/research";
import { toolError } from "@/lib/tools/outcome";
import type { SourceList } from "../sources";
import type { AgentToolbox } from "../types";

/**
 * A research run's two budgets (docs/research.md, "Research mode"), each per run: RESEARCH_MAX_SOURCES
 * sources read and RESEARCH_MAX_MINUTES of gathering. Every tool call of every section takes a slot
 * before it runs, so calls running at once in parallel sections cannot together read past the
 * sources budget; once it is reached, or the time is up, no further call runs: the model reads that
 * the budget is used up and reports what it found. Each budget reached is said once (`onReached`).
 */
export class ResearchBudgets {
  private inFlight = 0;
  private readonly reached = new Set<ResearchBudget>();
  readonly startedAt: number;
  /** When each source was first read (epoch ms), by number: the references' accessed dates. */
  readonly accessedAt = new Map<number, number>();

  constructor(
    private readonly options: {
      sources: SourceList;
      maxSources: number;
      maxMs: number;
      now: () => number;
      onReached: (budget: ResearchBudget) => void;
    },
  ) {
    this.startedAt = options.now();
  }

  get maxSources(): number {
    return this.options.maxSources;
  }

  get maxMs(): number {
    return this.options.maxMs;
  }

  get elapsedMs(): number {
    return Math.max(0, this.options.now() - this.startedAt);
  }

  get sourcesRead(): number {
    return this.options.sources.all.length;
  }

  get budgetsReached(): ResearchBudget[] {
    return (["sources", "time"] as const).filter((budget) => this.reached.has(budget));
  }

  private reach(budget: ResearchBudget): void {
    if (this.reached.has(budget)) return;
    this.reached.add(budget);
    this.options.onReached(budget);
  }

  /** True once RESEARCH_MAX_MINUTES have passed since gathering began (and says so, once). */
  timeUp(): boolean {
    if (this.reached.has("time")) return true;
    if (this.elapsedMs < this.options.maxMs) return false;
    this.reach("time");
    return true;
  }

  /** The budget that stops a new call now, if any. */
  private refusal(): ResearchBudget | null {
    if (this.timeUp()) return "time";
    if (this.sourcesRead + this.inFlight < this.options.maxSources) return null;
    // Calls still running may read nothing new: the budget is reached once the reads stand at it.
    if (this.sourcesRead >= this.options.maxSources) this.reach("sources");
    return "sources";
  }

  /** The toolbox every section's agent uses: its calls counted against the budgets. */
  toolbox(tools: AgentToolbox, language: PromptLanguage): AgentToolbox {
    return {
      specs: () => tools.specs(),
      select: (names) => this.toolbox(tools.select(names), language),
      execute: async (name, args, signal, call) => {
        const refused = this.refusal();
        if (refused) {
          return toolError(
            "not_run",
            prompt(language, refused === "time" ? "research_tool_time" : "research_tool_sources"),
          );
        }
        this.inFlight += 1;
        try {
          const outcome = await tools.execute(name, args, signal, call);
          if (outcome.ok && outcome.source) {
            // Numbered here, before the slot is freed (the loop's own cite finds it then).
            const source = this.options.sources.cite(outcome.source);
            if (!this.accessedAt.has(source.n)) this.accessedAt.set(source.n, this.options.now());
          }
          return outcome;
        } finally {
          this.inFlight -= 1;
          if (this.sourcesRead >= this.options.maxSources) this.reach("sources");
        }
      },
    };
  }
}
