import type { listFileSummaries } from "@/lib/db/conversation-detail";
import type { Message } from "@/lib/db/schema";
import type { ChatMessage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";

/** What the model is given from the conversation: the system prompt and the earlier turns. */

type FileSummary = Awaited<ReturnType<typeof listFileSummaries>>[number];

/**
 * Earlier turns as plain text — final answers, not old tool traces, never a failed run's partial
 * answer — after the stored compaction summary, which stands in for the turns it covers. Each
 * message is mapped to its database id so a new compaction can record what it covered.
 */
export function previousTurns(
  previous: Message[],
  conversation: { summary: string | null; summaryThrough: string | null },
  language: PromptLanguage,
): { history: ChatMessage[]; ids: Map<ChatMessage, string> } {
  const history: ChatMessage[] = [];
  const ids = new Map<ChatMessage, string>();
  let start = 0;
  if (conversation.summary && conversation.summaryThrough) {
    const through = previous.findIndex((message) => message.id === conversation.summaryThrough);
    if (through !== -1) {
      start = through + 1;
      const summary: ChatMessage = {
        role: "user",
        content: prompt(language, "compaction_summary", { summary: conversation.summary }),
      };
      history.push(summary);
      ids.set(summary, conversation.summaryThrough);
    }
  }
  for (const message of previous.slice(start)) {
    let turn: ChatMessage | undefined;
    if (message.role === "user") turn = { role: "user", content: message.content };
    else if (message.status !== "error" && message.content.trim())
      turn = { role: "assistant", content: message.content };
    if (turn) {
      history.push(turn);
      ids.set(turn, message.id);
    }
  }
  return { history, ids };
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Role, today's date and the conversation's files, so the model knows what it can read. */
export function systemPrompt(language: PromptLanguage, files: FileSummary[], now = new Date()): string {
  const parts = [prompt(language, "system", { date: now.toISOString().slice(0, 10) })];
  if (files.length > 0) {
    parts.push(
      [
        prompt(language, "files_intro"),
        ...files.map((file) =>
          prompt(language, "file_line", {
            id: file.id,
            filename: file.filename,
            pages: file.pageCount ? `${file.pageCount} pages, ` : "",
            size: formatSize(file.size),
          }),
        ),
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}
