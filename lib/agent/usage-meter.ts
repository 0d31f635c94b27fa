import type { LLM, ReplyPart, StreamPart, Usage } from "@/lib/llm/types";
import { addUsage, emptyUsage } from "@/lib/llm/types";

/**
 * Counts what every model call of one run cost, at the LLM boundary (docs/engine.md,
 * "Usage"): the loop, tool selection, structured calls at every level and retry,
 * compaction, dependency summaries, the planner, the analyzer and synthesis all go through a
 * wrapped model, so no call site can be left out of `done.usage`. A model wrapped twice is the same
 * wrapper, so identity checks on models still hold.
 */
export class UsageMeter {
  private sum: Usage = emptyUsage();
  private count = 0;
  private readonly wrapped = new WeakMap<LLM, LLM>();

  /** Every call's usage added so far. */
  get total(): Usage {
    return this.sum;
  }

  /** How many calls reported their usage. */
  get calls(): number {
    return this.count;
  }

  private add(usage: Usage): void {
    this.sum = addUsage(this.sum, usage);
    this.count++;
  }

  wrap(llm: LLM): LLM {
    const known = this.wrapped.get(llm);
    if (known) return known;
    const meter = this;
    const metered: LLM = {
      get model() {
        return llm.model;
      },
      get abilities() {
        return llm.abilities;
      },
      get contextLength() {
        return llm.contextLength;
      },
      async chat(messages, options) {
        const result = await llm.chat(messages, options);
        meter.add(result.usage);
        return result;
      },
      async *streamReply(messages, options): AsyncIterable<ReplyPart> {
        for await (const part of llm.streamReply(messages, options)) {
          if (part.type === "finish") meter.add(part.usage);
          yield part;
        }
      },
      async *streamChat(messages, options): AsyncIterable<StreamPart> {
        for await (const part of llm.streamChat(messages, options)) {
          if (part.type === "finish") meter.add(part.usage);
          yield part;
        }
      },
    };
    this.wrapped.set(llm, metered);
    this.wrapped.set(metered, metered);
    return metered;
  }
}
