import type { Message } from "./schema";

/**
 * A conversation's messages as a tree (docs/architecture.md, "Persistence"): each message follows
 * its parent; versions of a message (an edited question, a regenerated answer) are children of the
 * same parent. Interrupts (user messages sent to a run) hang under their run's question and are
 * shown with that run's answer; they are never versions of anything.
 */

/** A user message the agent took while it worked, stored under its run's question. */
export const isInterrupt = (message: Pick<Message, "role" | "runId">) =>
  message.role === "user" && message.runId !== null;

export class MessageTree {
  private readonly byId = new Map<string, Message>();
  /** Children that are versions (not interrupts), oldest first; roots under `null`. */
  private readonly children = new Map<string | null, Message[]>();
  private readonly interrupts = new Map<string, Message[]>();
  private readonly answerOfRun = new Map<string, Message>();

  /** `messages` oldest first, as `listMessages` returns them. */
  constructor(messages: Message[]) {
    for (const message of messages) {
      this.byId.set(message.id, message);
      if (isInterrupt(message)) {
        if (message.parentId) push(this.interrupts, message.parentId, message);
        continue;
      }
      push(this.children, message.parentId, message);
      if (message.role === "assistant" && message.runId) this.answerOfRun.set(message.runId, message);
    }
  }

  get(id: string): Message | undefined {
    return this.byId.get(id);
  }

  /** The end of the newest branch below `id`: at each step, the newest version. */
  latestLeaf(id: string): string {
    let leaf = id;
    for (let next = this.children.get(leaf)?.at(-1); next; next = this.children.get(leaf)?.at(-1)) leaf = next.id;
    return leaf;
  }

  /** Where the branch shown ends when message `id` is opened: below an interrupt, its run's answer. */
  leafThrough(id: string): string {
    const message = this.byId.get(id);
    if (!message || !isInterrupt(message) || !message.runId) return this.latestLeaf(id);
    return this.latestLeaf(this.answerOfRun.get(message.runId)?.id ?? message.parentId ?? id);
  }

  /**
   * The branch from the first question down to `leafId`, with the interrupts each run took before
   * its answer; a question at the end shows those of its run still going. Empty for `null`.
   */
  path(leafId: string | null): Message[] {
    const line: Message[] = [];
    const seen = new Set<string>();
    for (let at = leafId ? this.byId.get(leafId) : undefined; at && !seen.has(at.id); ) {
      seen.add(at.id);
      line.push(at);
      at = at.parentId ? this.byId.get(at.parentId) : undefined;
    }
    line.reverse();
    return line.flatMap((message, index) => {
      const next = line[index + 1];
      const taken = (this.interrupts.get(message.id) ?? []).filter((interrupt) =>
        next ? interrupt.runId === next.runId : !this.answerOfRun.has(interrupt.runId ?? ""),
      );
      return [message, ...taken];
    });
  }

  /** The ids of the message's versions, oldest first, itself included (just itself when it has none). */
  versions(message: Message): string[] {
    if (isInterrupt(message)) return [message.id];
    return (this.children.get(message.parentId) ?? [])
      .filter((sibling) => sibling.role === message.role)
      .map((sibling) => sibling.id);
  }
}

function push<K>(map: Map<K, Message[]>, key: K, message: Message): void {
  const list = map.get(key);
  if (list) list.push(message);
  else map.set(key, [message]);
}
