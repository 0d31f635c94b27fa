import type { ReplyPart } from "@/lib/llm/types";

/**
 * Thinking that a model wrote into its content instead of Ollama's `message.thinking`:
 * `<think>…</think>` (DeepSeek-R1, Qwen3, also empty), harmony's analysis channel
 * (`<|channel|>analysis<|message|>…<|end|>`, or stripped of its tokens: `analysis…assistantfinal`).
 * It is moved to reasoning parts as the stream goes, so it is shown and stored like thinking and
 * never as the answer. Linear: each delta is looked at once, plus a short held-back tail.
 */

type State = "start" | "think" | "harmony" | "stripped" | "text";

const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";
const HARMONY_OPENERS = ["<|start|>assistant<|channel|>analysis<|message|>", "<|channel|>analysis<|message|>"];
const HARMONY_END = "<|end|>";
const FINAL_HEADERS = ["<|start|>assistant<|channel|>final<|message|>", "<|channel|>final<|message|>"];
const STRIPPED_OPENER = "analysis";
const STRIPPED_FINAL = "assistantfinal";
const STRIPPED_COMMENTARY = "assistantcommentary";

type Part = { type: "text" | "reasoning"; text: string };

export class ThinkingSplitter {
  private state: State = "start";
  private buffer = "";
  /** A thinking block has ended: the whitespace after it is not part of the answer. */
  private afterThinking = false;

  /** The parts a text delta becomes (in order); some of it may be held back until the next. */
  push(delta: string): Part[] {
    this.buffer += delta;
    return this.drain(false);
  }

  /** The reply is whole: whatever was held back. */
  end(): Part[] {
    return this.drain(true);
  }

  private drain(final: boolean): Part[] {
    const out: Part[] = [];
    const emit = (type: Part["type"], text: string) => {
      if (text) out.push({ type, text });
    };
    for (;;) {
      const state = this.state;
      const held = this.buffer.length;
      switch (this.state) {
        case "text":
          emit("text", this.buffer);
          this.buffer = "";
          return out;
        case "start":
          this.decideStart(final);
          break;
        case "think":
          this.until(THINK_CLOSE, "reasoning", final, emit);
          break;
        case "harmony":
          this.until(HARMONY_END, "reasoning", final, emit);
          break;
        case "stripped":
          this.stripped(final, emit);
          break;
      }
      if (this.state === state && this.buffer.length === held) return out;
    }
  }

  private decideStart(final: boolean): void {
    const start = this.buffer.trimStart();
    if (start === "") {
      if (final) this.buffer = "";
      return;
    }
    const opener = (prefix: string) => start.startsWith(prefix);
    const mayBecome = (prefix: string) => !final && prefix.startsWith(start);
    const harmony = HARMONY_OPENERS.find(opener);
    const finalHeader = FINAL_HEADERS.find(opener);
    if (opener(THINK_OPEN)) this.enter("think", start.slice(THINK_OPEN.length));
    else if (harmony) this.enter("harmony", start.slice(harmony.length));
    else if (finalHeader) this.enter("text", start.slice(finalHeader.length));
    else if (opener(STRIPPED_OPENER)) this.enter("stripped", start.slice(STRIPPED_OPENER.length));
    else if (![THINK_OPEN, ...HARMONY_OPENERS, ...FINAL_HEADERS, STRIPPED_OPENER].some(mayBecome)) {
      this.state = "text";
      if (this.afterThinking) this.buffer = start;
    }
  }

  private enter(state: State, rest: string): void {
    this.state = state;
    this.buffer = rest;
  }

  /** Reasoning up to `closer`, streamed as it comes (a tail that may be the closer's start held back). */
  private until(closer: string, type: Part["type"], final: boolean, emit: (type: Part["type"], text: string) => void) {
    const at = this.buffer.indexOf(closer);
    if (at !== -1) {
      emit(type, this.buffer.slice(0, at));
      this.afterThinking = true;
      this.enter("start", this.buffer.slice(at + closer.length));
      return;
    }
    let keep = 0;
    if (!final) {
      for (let n = Math.min(closer.length - 1, this.buffer.length); n > 0; n--) {
        if (closer.startsWith(this.buffer.slice(-n))) {
          keep = n;
          break;
        }
      }
    }
    emit(type, this.buffer.slice(0, this.buffer.length - keep));
    this.buffer = this.buffer.slice(this.buffer.length - keep);
  }

  /** Stripped harmony: held whole until its final (or commentary) marker tells where thinking ends. */
  private stripped(final: boolean, emit: (type: Part["type"], text: string) => void) {
    const finalAt = this.buffer.indexOf(STRIPPED_FINAL);
    const commentaryAt = this.buffer.indexOf(STRIPPED_COMMENTARY);
    if (finalAt !== -1 && (commentaryAt === -1 || finalAt < commentaryAt)) {
      emit("reasoning", this.buffer.slice(0, finalAt));
      this.enter("text", this.buffer.slice(finalAt + STRIPPED_FINAL.length));
    } else if (commentaryAt !== -1) {
      emit("reasoning", this.buffer.slice(0, commentaryAt));
      this.enter("text", this.buffer.slice(commentaryAt + "assistant".length));
    } else if (final) {
      // No marker came: it was prose that happens to begin with the word.
      emit("text", STRIPPED_OPENER + this.buffer);
      this.enter("text", "");
    }
  }
}

/** A reply stream with thinking markup in its text moved to reasoning parts. */
export async function* withThinkingSplit<P extends ReplyPart>(parts: AsyncIterable<P>): AsyncIterable<P | Part> {
  const splitter = new ThinkingSplitter();
  for await (const part of parts) {
    if (part.type !== "text") {
      if (part.type !== "reasoning") yield* splitter.end();
      yield part;
      continue;
    }
    yield* splitter.push(part.text);
  }
  yield* splitter.end();
}
