import type { ChatMessage, LLM } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { NoticeAbout, Source } from "@/lib/protocol/run-events";
import { ContextGuard } from "../context-guard";
import { streamSynthesis } from "../synthesis";
import { withUserInstructions } from "../user-instructions";
import type { SectionFindings } from "./gather";

/**
 * Writing (docs/research.md, "Research mode"): each section from its own findings alone, with `[n]`
 * markers that are the run's source numbers, streamed as it is written; a section whose research
 * failed says so and nothing is written in its place. Then a summary of the sections written, put
 * at the top, and the references — every source the report cites, with its title, URL and the date
 * it was read — at the end. Every call goes through the context guard.
 */

export interface WriteContext {
  llm: LLM;
  goal: string;
  instructions?: string;
  language: PromptLanguage;
  signal: AbortSignal;
  sources: Source[];
  /** Characters of one source's reads a section's writer is given (SYNTHESIS_TRACE_CHARS). */
  readChars: number;
  onNotice?: (about: NoticeAbout) => void;
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`);

/** A section's findings as its writer reads them: each source it read, by the run's number, then its notes. */
export function findingsText(
  findings: Extract<SectionFindings, { status: "gathered" }>,
  context: WriteContext,
): string {
  const byNumber = new Map<number, string[]>();
  for (const read of findings.reads) byNumber.set(read.n, [...(byNumber.get(read.n) ?? []), read.text]);
  const sources = new Map(context.sources.map((source) => [source.n, source]));
  const parts = [...byNumber.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, texts]) => {
      const source = sources.get(n);
      const head = source ? `[${n}] ${source.title} — ${source.url}` : `[${n}]`;
      return `${head}\n${cut(texts.join("\n\n"), context.readChars)}`;
    });
  if (findings.notes) parts.push(prompt(context.language, "research_section_notes", { notes: findings.notes }));
  return parts.join("\n\n");
}

async function* streamed(llm: LLM, messages: ChatMessage[], context: WriteContext): AsyncIterable<string> {
  const guard = new ContextGuard({ llm, language: context.language });
  for await (const part of streamSynthesis(llm, guard, messages, {
    signal: context.signal,
    onNotice: context.onNotice,
  })) {
    if (part.type === "text") yield part.text;
  }
}

/** One section, heading first, streamed into `onText`; its text returned. A model failure says so in the section. */
export async function writeSection(
  findings: SectionFindings,
  context: WriteContext,
  onText: (text: string) => void,
): Promise<string> {
  const { language } = context;
  let text = "";
  const put = (piece: string) => {
    text += piece;
    onText(piece);
  };
  put(`## ${findings.section.title}\n\n`);
  if (findings.status === "failed") {
    put(`${prompt(language, "research_section_failed", { reason: findings.reason })}\n\n`);
    return text;
  }
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: withUserInstructions(prompt(language, "research_write_system"), context.instructions, language),
    },
    {
      role: "user",
      content: prompt(language, "research_write_user", {
        goal: context.goal,
        title: findings.section.title,
        questions: findings.section.questions.map((question) => `- ${question}`).join("\n"),
        findings: findingsText(findings, context),
      }),
    },
  ];
  try {
    for await (const piece of streamed(context.llm, messages, context)) put(piece);
  } catch (error) {
    if (context.signal.aborted) throw error;
    put(
      `\n\n${prompt(language, "research_write_failed", { reason: error instanceof Error ? error.message : String(error) })}`,
    );
  }
  put("\n\n");
  return text;
}

/** The summary of the sections written; "" when the model fails (the report stands without one). */
export async function writeSummary(body: string, context: WriteContext): Promise<string> {
  const { language } = context;
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: withUserInstructions(prompt(language, "research_summary_system"), context.instructions, language),
    },
    { role: "user", content: prompt(language, "research_summary_user", { goal: context.goal, report: body }) },
  ];
  let text = "";
  try {
    for await (const piece of streamed(context.llm, messages, context)) text += piece;
  } catch (error) {
    if (context.signal.aborted) throw error;
    return "";
  }
  return text.trim();
}

/** The source numbers `[n]` (and `[n, m]`) of a text names, once each, in order. */
export function citedNumbers(text: string): number[] {
  const numbers = new Set<number>();
  for (const match of text.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    for (const n of (match[1] ?? "").split(",")) numbers.add(Number(n.trim()));
  }
  return [...numbers].sort((a, b) => a - b);
}

/** The references: every source of the run the text cites, with its title, URL and accessed date. */
export function referencesText(
  text: string,
  sources: Source[],
  accessedAt: ReadonlyMap<number, number>,
  language: PromptLanguage,
): string {
  const byNumber = new Map(sources.map((source) => [source.n, source]));
  const lines = citedNumbers(text).flatMap((n) => {
    const source = byNumber.get(n);
    if (!source) return [];
    const at = accessedAt.get(n);
    const date = at === undefined ? "" : new Date(at).toISOString().slice(0, 10);
    return [prompt(language, "research_reference", { n: String(n), title: source.title, url: source.url, date })];
  });
  if (lines.length === 0) return "";
  // One paragraph each: single line breaks would run them together on screen.
  return `## ${prompt(language, "research_references_heading")}\n\n${lines.join("\n\n")}\n`;
}
