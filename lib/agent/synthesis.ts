import { type ChatMessage, emptyUsage, type LLM, type StreamPart, type Usage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { NoticeAbout, Source } from "@/lib/protocol/run-events";
import type { ContextGuard } from "./context-guard";
import { shownStream } from "./tool-call-forms";
import type { AgentResult } from "./types";
import { withUserInstructions } from "./user-instructions";

/**
 * Phase 2: a streamed answer written from the whole trace by a synthesiser prompt —
 * direct, Markdown, no meta-commentary, the question's language. Each tool result is cut to
 * SYNTHESIS_TRACE_CHARS to keep the prompt small. ReAct and DAG mode build the request the same
 * way (`synthesisRequest`): the question with every follow-up the run took, in order, then the trace.
 */

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The sources read, by number, so the answer's `[n]` match the chips under it; "" when none. */
export function sourcesSection(sources: Source[], language: PromptLanguage): string {
  if (sources.length === 0) return "";
  const list = sources.map((source) => `[${source.n}] ${source.title} — ${source.url}`).join("\n");
  return prompt(language, "synthesis_sources", { sources: list });
}

export function formatTrace(result: AgentResult, language: PromptLanguage, traceChars: number): string {
  const parts = result.steps.map((step, index) => {
    const read = step.source ? ` [${step.source.n}]` : "";
    const error = step.ok ? "" : " — error";
    return `### ${index + 1}. ${step.tool}(${JSON.stringify(step.args)})${read}${error}\n${cut(step.observation, traceChars)}`;
  });
  if (parts.length === 0) parts.push(prompt(language, "synthesis_no_tools"));
  const sources = sourcesSection(result.sources, language);
  if (sources) parts.push(sources);
  if (result.answer.trim()) parts.push(prompt(language, "synthesis_draft", { answer: result.answer.trim() }));
  return parts.join("\n\n");
}

/** The question as the answer must serve it: followed by every follow-up the run took, in order. */
export function questionWithFollowUps(question: string, followUps: string[], language: PromptLanguage): string {
  if (followUps.length === 0) return question;
  const text = followUps.map((followUp) => `- ${followUp}`).join("\n");
  return `${question}\n\n${prompt(language, "synthesis_followups", { text })}`;
}

/** The synthesis request of both modes: system, earlier turns, then the question, its follow-ups and the trace. */
export function synthesisRequest({
  question,
  followUps,
  trace,
  instructions,
  history,
  language,
}: {
  question: string;
  followUps: string[];
  trace: string;
  instructions?: string;
  history: ChatMessage[];
  language: PromptLanguage;
}): ChatMessage[] {
  return [
    { role: "system", content: synthesisSystem(language, instructions) },
    ...history,
    {
      role: "user",
      content: prompt(language, "synthesis_user", {
        question: questionWithFollowUps(question, followUps, language),
        trace,
      }),
    },
  ];
}

/** ReAct mode's synthesis request: the loop's trace, and the follow-ups the loop took. */
export function synthesisMessages(
  result: AgentResult,
  {
    question,
    instructions,
    history,
    language,
    traceChars,
  }: { question: string; instructions?: string; history: ChatMessage[]; language: PromptLanguage; traceChars: number },
): ChatMessage[] {
  return synthesisRequest({
    question,
    followUps: result.followUps,
    trace: formatTrace(result, language, traceChars),
    instructions,
    history,
    language,
  });
}

/** The synthesiser's system prompt, in both modes, with the user's own instructions. */
export function synthesisSystem(language: PromptLanguage, instructions: string | undefined): string {
  return withUserInstructions(prompt(language, "synthesis_system"), instructions, language);
}

/**
 * The synthesis call, in both modes: the question (the last message, with the turn's images when
 * the model sees them) is kept whole, the rest is fitted to the model's context, then it streams.
 */
export async function* streamSynthesis(
  llm: LLM,
  guard: ContextGuard,
  messages: ChatMessage[],
  { images, signal, onNotice }: { images?: string[]; signal: AbortSignal; onNotice?: (about: NoticeAbout) => void },
): AsyncIterable<StreamPart> {
  const last = messages.at(-1) as ChatMessage;
  const question: ChatMessage =
    llm.abilities.vision && images?.length ? { role: "user", content: last.content, images } : last;
  const fitted = await guard.fit([...messages.slice(0, -1), question], new Set([question]), {
    hint: "general",
    signal,
    // The question with its research had to be cut: the trail says so.
    onCut: ({ original, cut }) => {
      if (original !== question) return;
      onNotice?.({ code: "cut", what: "research", kept: cut.content.length, total: original.content.length });
    },
  });
  // Thinking written into the text goes to thinking; special tokens never reach the answer.
  yield* shownStream(llm.streamChat(fitted, { signal }));
}

/** Where a synthesis goes as it streams: answer text, and thinking as it grows and once it is whole. */
export interface SynthesisSink {
  onText(text: string): void;
  onThinking(delta: string): void;
  onThought(text: string, durationMs: number): void;
}

/**
 * How a synthesis ended. What streamed is never replaced: `interrupted` keeps it, cut where the model
 * failed; only when nothing streamed does the loop's draft stand in (`draft`); `failed` had neither.
 */
export type SynthesisOutcome =
  | { ended: "complete"; text: string; usage: Usage }
  | { ended: "interrupted" | "draft" | "failed"; text: string; usage: Usage; failure: unknown };

/**
 * Streams the synthesis into the sink. A failure of the model (an error, a dropped connection, an
 * Ollama error line) ends it as an outcome; Stop (the signal) is thrown.
 */
export async function writeSynthesis(
  stream: AsyncIterable<StreamPart>,
  { draft, signal, sink }: { draft: string; signal: AbortSignal; sink: SynthesisSink },
): Promise<SynthesisOutcome> {
  let text = "";
  let usage = emptyUsage();
  let thinking = "";
  let thinkingStarted = 0;
  let thinkingMs = 0;
  try {
    for await (const part of stream) {
      if (part.type === "reasoning") {
        thinkingStarted ||= Date.now();
        thinking += part.text;
        sink.onThinking(part.text);
        continue;
      }
      if (thinkingStarted && !thinkingMs) thinkingMs = Math.max(1, Date.now() - thinkingStarted);
      if (part.type === "text") {
        text += part.text;
        sink.onText(part.text);
      } else if (part.type === "finish") usage = part.usage;
    }
    return { ended: "complete", text, usage };
  } catch (failure) {
    if (signal.aborted) throw failure;
    if (text) return { ended: "interrupted", text, usage, failure };
    const stand = draft.trim();
    if (!stand) return { ended: "failed", text: "", usage, failure };
    sink.onText(stand);
    return { ended: "draft", text: stand, usage, failure };
  } finally {
    if (thinking.trim()) sink.onThought(thinking, thinkingMs || Math.max(1, Date.now() - thinkingStarted));
  }
}
