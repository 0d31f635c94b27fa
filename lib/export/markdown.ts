import { MessageTree } from "@/lib/db/message-tree";
import type { Message } from "@/lib/db/schema";
import type { RunStep } from "@/lib/protocol/run-events";
import type { ConversationExport, ExportedFile, ExportedRun } from "./format";
import {
  accessedDate,
  answerWithReferences,
  attachmentId,
  type Reference,
  type ReferenceSource,
  verdictNote,
} from "./references";

/**
 * A conversation as Markdown, for people to read: the branch shown, question by answer, each
 * answer's tool steps folded in a `<details>` block and its references (the sources it cites, with
 * the date read and what checking its citations found) as links, attachments listed. It is not
 * read back: importing takes the JSON export.
 */
export function conversationMarkdown(document: ConversationExport): string {
  const { conversation } = document;
  const tree = new MessageTree(
    document.messages.map((message) => ({ ...message, conversationId: conversation.id }) satisfies Message),
  );
  const filesById = new Map(document.files.map((file) => [file.id, file]));
  const runsById = new Map(document.runs.map((run) => [run.id, run]));
  const reportsByMessage = new Map(document.citationReports.map(({ messageId, report }) => [messageId, report]));
  const fileName = (fileId: string) => filesById.get(fileId)?.filename;
  const lines = [
    `# ${oneLine(conversation.title)}`,
    "",
    `- Model: ${conversation.model ? inlineCode(conversation.model) : "—"}`,
    `- Started: ${isoTime(conversation.createdAt)}; last message: ${isoTime(conversation.updatedAt)}`,
    "- Exported from ollama-web. This Markdown copy is for reading; to restore the conversation, import its JSON export.",
    "",
  ];
  for (const message of tree.path(conversation.activeLeafId)) {
    const run = message.runId ? runsById.get(message.runId) : undefined;
    if (message.role === "user") {
      lines.push(`## ${message.runId ? "Follow-up" : "User"} · ${isoTime(message.createdAt)}`, "", message.content, "");
      const attached = (message.attachmentIds ?? []).flatMap((fileId) => filesById.get(fileId) ?? []);
      if (attached.length) lines.push("Attachments:", ...attached.map((file) => `- ${describeFile(file)}`), "");
      continue;
    }
    lines.push(`## Assistant · ${run ? `${inlineCode(run.model)} · ` : ""}${isoTime(message.createdAt)}`, "");
    const steps = (run?.events ?? []).flatMap((event) => (event.type === "step" ? [event.data as RunStep] : []));
    const calls = steps.filter((step) => step.type === "tool_call");
    if (calls.length) {
      lines.push(`<details><summary>Tool steps (${calls.length})</summary>`, "");
      for (const call of calls) {
        const result = steps.find((step) => step.type === "tool_result" && step.callId === call.callId);
        const outcome = result?.type === "tool_result" ? (result.ok ? "ok" : "failed") : "no result";
        lines.push(`- ${inlineCode(call.tool)} ${inlineCode(cut(JSON.stringify(call.args ?? {}), 200))} → ${outcome}`);
      }
      lines.push("", "</details>", "");
    }
    if (run?.error) lines.push(`> ${run.status === "complete" ? "Note" : "The run ended"}: ${oneLine(run.error)}`, "");
    const sources = run ? runSources(run, steps) : [];
    const { content, references } = answerWithReferences(message.content, {
      mode: run?.mode ?? null,
      sources,
      report: reportsByMessage.get(message.id),
    });
    lines.push(content || "*(no answer)*", "");
    if (references.length) {
      lines.push(referencesMarkdown(references, fileName), "");
    } else if (sources.length) {
      // Read but not cited: still where the answer came from.
      lines.push("Sources read:", ...sources.map((source) => `- ${sourceLink(source, fileName)}`), "");
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/**
 * The run's sources: those stored with it (version 2 on), or, for an export without them
 * (version 1), the sources its steps name, read when the step ran.
 */
function runSources(run: ExportedRun, steps: RunStep[]): ReferenceSource[] {
  if (run.sources.length) return run.sources;
  const byNumber = new Map<number, ReferenceSource>();
  for (const step of steps) {
    if (step.type === "tool_result" && step.source && !byNumber.has(step.source.n)) {
      byNumber.set(step.source.n, { ...step.source, retrievedAt: step.at });
    }
  }
  return [...byNumber.values()].sort((a, b) => a.n - b.n);
}

/**
 * "References:" and one line per reference: `[n]` (the answer's marker), the title linked to its
 * URL, the date read and, when checked, its citations' verdicts.
 */
export function referencesMarkdown(
  references: readonly Reference[],
  fileName: (fileId: string) => string | undefined,
): string {
  const lines = references.map((reference) => {
    const checked = verdictNote(reference.verdicts);
    return `- \\[${reference.n}\\] ${sourceLink(reference, fileName)}, accessed ${accessedDate(reference.retrievedAt)}${checked ? ` — citations: ${checked}` : ""}`;
  });
  return ["References:", ...lines].join("\n");
}

function sourceLink(source: { url: string; title: string }, fileName: (fileId: string) => string | undefined): string {
  const title = escapeText(oneLine(source.title || source.url));
  const fileId = attachmentId(source.url);
  if (fileId !== null) {
    const name = fileName(fileId);
    return `${title} (attached file${name ? ` ${inlineCode(name)}` : ""})`;
  }
  if (!/^https?:\/\//i.test(source.url)) return title;
  const url = source.url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`);
  return `[${title}](${url})`;
}

function describeFile(file: ExportedFile): string {
  const pages = file.pageCount === null ? "" : `, ${file.pageCount} pages`;
  return `${inlineCode(file.filename)} (${file.mime}, ${file.size} bytes${pages}, sha256 ${file.sha256.slice(0, 12)}…)`;
}

const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();
const cut = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
const escapeText = (value: string) => value.replace(/[\\[\]*_`<>]/g, "\\$&");

/** Inline code that its own backticks cannot end. */
function inlineCode(value: string): string {
  const text = oneLine(value);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${text.startsWith("`") || text.endsWith("`") ? ` ${text} ` : text}${fence}`;
}
