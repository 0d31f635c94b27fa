import type { CitationReport } from "@/lib/protocol/citations";
import { referencesMarkdown } from "./markdown";
import { answerWithReferences, citationSummary, type Reference, type ReferenceSource } from "./references";

/**
 * One answer as a document of its own (docs/research.md, "Exports"): the answer's Markdown as the
 * model wrote it, headed by the conversation's title and the question, with the references it cites
 * at the end. The Markdown and Word downloads are both made from this. Framework-free.
 */
export interface AnswerDocument {
  title: string;
  question: string | null;
  model: string | null;
  answeredAt: number;
  /** The answer's Markdown, `[n]` markers and all (a research report without the references its writer listed). */
  content: string;
  references: Reference[];
  /** The citations' header line, when they were checked. */
  citations: string | null;
  /** An attached file's name by its id: what a reference to it is called. */
  fileName: (fileId: string) => string | undefined;
}

export function answerDocument({
  title,
  question,
  model,
  answeredAt,
  content,
  mode,
  sources,
  report,
  files,
}: {
  title: string;
  question: string | null;
  model: string | null;
  answeredAt: number;
  content: string;
  /** The run's mode: a research report lists its own references, which this one replaces. */
  mode: string | null;
  sources: readonly ReferenceSource[];
  report: CitationReport | null;
  files: readonly { id: string; filename: string }[];
}): AnswerDocument {
  const names = new Map(files.map((file) => [file.id, file.filename]));
  return {
    title,
    question,
    model,
    answeredAt,
    ...answerWithReferences(content, { mode, sources, report }),
    citations: report && report.checks.length > 0 ? citationSummary(report) : null,
    fileName: (fileId) => names.get(fileId),
  };
}

/** The document as Markdown: title, question, what answered and when, the answer, its references. */
export function answerMarkdown(document: AnswerDocument): string {
  const about = [
    document.model ? `Model: ${document.model}` : null,
    `answered ${new Date(document.answeredAt).toISOString().replace(/\.\d{3}Z$/, "Z")}`,
    document.citations,
  ].filter((part) => part !== null);
  const lines = [`# ${document.title.replace(/\s+/g, " ").trim()}`, ""];
  if (document.question) lines.push(...document.question.split("\n").map((line) => `> ${line}`.trimEnd()), "");
  lines.push(about.join(" · "), "", document.content.trim() || "*(no answer)*", "");
  if (document.references.length) {
    lines.push("---", "", referencesMarkdown(document.references, document.fileName), "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
