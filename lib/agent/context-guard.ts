import type { ChatMessage, LLM } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { Compaction } from "@/lib/protocol/run-events";

/**
 * Keeps every LLM call inside the model's usable context. The estimate (ASCII chars/4,
 * other chars/1.5, +4 a message) is corrected by the prompt_eval_count Ollama reports. Over budget,
 * the older part is summarised by a compaction call whose prompt depends on a hint; the result is
 * system messages, pinned messages, one `[Conversation summary]` message, then the most recent
 * messages — never splitting an assistant tool-call message from its tool results.
 */

export type CompactionHint = "react_iteration" | "general" | "planner_input" | "step_dependency";

/** A compaction as the engine reports it: the numbers the `compact` event shows, and what it did. */
export interface CompactionEvent extends Compaction {
  /** The summary, or null when compaction fell back to dropping old messages. */
  summary: string | null;
  /** The input messages that the summary (or the drop) replaced. */
  replaced: ChatMessage[];
}

/** A message that had to be cut to fit: the message as it was, and the shorter one that replaced it. */
export interface MessageCut {
  original: ChatMessage;
  cut: ChatMessage;
}

export function estimateTextTokens(text: string): number {
  let ascii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 128) ascii++;
  return ascii / 4 + (text.length - ascii) / 1.5;
}

function messageText(message: ChatMessage): string {
  return message.role === "assistant" && message.toolCalls?.length
    ? `${message.content}${JSON.stringify(message.toolCalls)}`
    : message.content;
}

export function estimateTokens(messages: ChatMessage[]): number {
  return Math.ceil(messages.reduce((sum, message) => sum + estimateTextTokens(messageText(message)) + 4, 0));
}

export interface ContextGuardOptions {
  llm: LLM;
  language: PromptLanguage;
  /** Tokens kept free for the reply; default min(4096, a quarter of the context). */
  replyReserve?: number;
  onCompact?: (event: CompactionEvent) => void;
}

export class ContextGuard {
  /** prompt_eval_count / estimate of the last call: our estimate's bias for this model. */
  private correction = 1;

  constructor(private readonly options: ContextGuardOptions) {}

  get budget(): number {
    const context = this.options.llm.contextLength;
    return context - (this.options.replyReserve ?? Math.min(4096, Math.floor(context / 4)));
  }

  estimate(messages: ChatMessage[], extraText = ""): number {
    return Math.ceil((estimateTokens(messages) + estimateTextTokens(extraText)) * this.correction);
  }

  /**
   * Learns from the real prompt size Ollama reported for `messages`. Only upwards: with a warm
   * prompt cache Ollama counts just the newly evaluated tokens, which would make the budget lie.
   */
  observe(messages: ChatMessage[], promptTokens: number, extraText = ""): void {
    const raw = estimateTokens(messages) + estimateTextTokens(extraText);
    if (promptTokens > 0 && raw > 0) this.correction = Math.min(4, Math.max(1, promptTokens / raw));
  }

  private cut(message: ChatMessage, maxChars: number): ChatMessage {
    if (message.content.length <= maxChars) return message;
    const marker = `\n${prompt(this.options.language, "truncated")}\n`;
    // Head and tail survive: a paged result's footer (its next_token) sits at the end.
    const head = Math.floor((maxChars - marker.length) * 0.7);
    const tail = maxChars - marker.length - head;
    return {
      ...message,
      content: message.content.slice(0, head) + marker + message.content.slice(-tail),
    } as ChatMessage;
  }

  /**
   * Returns `messages` when they fit, else a compacted list. `pinned` messages always survive
   * (if they alone pass half the budget: the first — the question — and the newest; the others
   * are summarised with the older part). A message cut to fit is a new object: `onCut` hears of
   * each one that is in the result, so a caller can move its pin and say what was cut.
   */
  async fit(
    messages: ChatMessage[],
    pinned: ReadonlySet<ChatMessage>,
    {
      hint,
      signal,
      extraText = "",
      onCut,
    }: { hint: CompactionHint; signal?: AbortSignal; extraText?: string; onCut?: (cut: MessageCut) => void },
  ): Promise<ChatMessage[]> {
    const budget = this.budget - this.estimate([], extraText);
    const tokensBefore = this.estimate(messages);
    if (tokensBefore <= budget) return messages;

    const maxChars = Math.max(200, Math.floor((budget / 4) * 3.5));
    const systemCount = messages.findIndex((m) => m.role !== "system");
    const system = messages.slice(0, systemCount === -1 ? messages.length : systemCount);
    const rest = messages.slice(system.length);
    const originals = new Map<ChatMessage, ChatMessage>();
    const cutToFit = (message: ChatMessage) => {
      const cut = this.cut(message, maxChars);
      if (cut !== message) originals.set(cut, message);
      return cut;
    };
    const allPinned = rest.filter((m) => pinned.has(m));
    let keptPinned = allPinned.map(cutToFit);
    let droppedPinned: ChatMessage[] = [];
    if (this.estimate(keptPinned) > budget / 2 && keptPinned.length > 2) {
      keptPinned = [keptPinned[0] as ChatMessage, keptPinned.at(-1) as ChatMessage];
      droppedPinned = allPinned.slice(1, -1);
    }
    const unpinned = rest.filter((m) => !pinned.has(m));

    // The recent tail, within what is left after system, pinned and room for the summary.
    const room = budget - this.estimate(system) - this.estimate(keptPinned) - Math.floor(budget * 0.15);
    let start = unpinned.length;
    while (start > 0 && this.estimate(unpinned.slice(start - 1).map((m) => this.cut(m, maxChars))) <= room) start--;
    // Never begin the tail with tool results whose assistant message would be left behind.
    while (start < unpinned.length && unpinned[start]?.role === "tool") start++;
    const recent = unpinned.slice(start).map(cutToFit);
    const older = [...droppedPinned, ...unpinned.slice(0, start)];

    let summary: string | null = null;
    if (older.length > 0) summary = await this.summarise(older, hint, signal);
    const summaryMessage: ChatMessage[] = summary
      ? [{ role: "user", content: prompt(this.options.language, "compaction_summary", { summary }) }]
      : [];
    let result = [...system, ...keptPinned, ...summaryMessage, ...recent];
    // Still over (a huge tail message, or no summary): drop the oldest recent messages, in pairs.
    while (this.estimate(result) > budget && recent.length > 0) {
      recent.shift();
      while (recent[0]?.role === "tool") recent.shift();
      result = [...system, ...keptPinned, ...summaryMessage, ...recent];
    }
    for (const message of result) {
      const original = originals.get(message);
      if (original) onCut?.({ original, cut: message });
    }
    this.options.onCompact?.({
      originalMessages: messages.length,
      keptMessages: result.length,
      tokensBefore,
      tokensAfter: this.estimate(result),
      summary,
      replaced: older,
    });
    return result;
  }

  /** One compaction call; any failure or an empty summary gives null (the caller drops or cuts instead). */
  async summarise(older: ChatMessage[], hint: CompactionHint, signal?: AbortSignal): Promise<string | null> {
    const { language, llm } = this.options;
    // The compaction call must fit too: every message gets its share, head and tail kept.
    const share = Math.max(300, Math.floor(((this.budget - 512) * 3) / older.length));
    const transcript = older
      .map(
        (m) =>
          `${m.role.toUpperCase()}${m.role === "tool" ? ` (${m.toolName})` : ""}: ${this.cut({ role: "user", content: messageText(m) }, share).content}`,
      )
      .join("\n\n");
    // Shares are counted in characters; a transcript of wide characters is cut again to fit the call.
    const frame = this.estimate([
      { role: "system", content: prompt(language, "compaction_system") },
      { role: "user", content: prompt(language, `compaction_${hint}`, { transcript: "" }) },
    ]);
    const room = this.budget - frame;
    const tokens = this.estimate([], transcript);
    const fitted =
      tokens <= room
        ? transcript
        : this.cut(
            { role: "user", content: transcript },
            Math.max(200, Math.floor((transcript.length * room) / tokens)),
          ).content;
    try {
      const reply = await llm.chat(
        [
          { role: "system", content: prompt(language, "compaction_system") },
          { role: "user", content: prompt(language, `compaction_${hint}`, { transcript: fitted }) },
        ],
        { signal },
      );
      const text = reply.content.trim();
      return text ? text : null;
    } catch (error) {
      if (signal?.aborted) throw error;
      return null;
    }
  }
}
