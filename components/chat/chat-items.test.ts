import { describe, expect, it } from "vitest";
import type { StoredMessage } from "@/lib/client/types";
import { buildChatItems } from "./chat-items";
import type { LiveTurn } from "./use-chat-runs";

const run = (id: string, extra: Partial<NonNullable<StoredMessage["run"]>> = {}) => ({
  id,
  status: "complete" as const,
  mode: "plain",
  model: "llama3.2:latest",
  iterations: 1,
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  elapsedMs: 120,
  error: null,
  steps: [],
  ...extra,
});

const user = (id: string, content: string): StoredMessage => ({
  id,
  conversationId: "c1",
  role: "user",
  content,
  status: "complete",
  runId: null,
  createdAt: 1,
  run: null,
});

const assistant = (id: string, runId: string, content: string, extra: Partial<StoredMessage> = {}): StoredMessage => ({
  id,
  conversationId: "c1",
  role: "assistant",
  content,
  status: "complete",
  runId,
  createdAt: 2,
  run: run(runId),
  ...extra,
});

const turn = (extra: Partial<LiveTurn> = {}): LiveTurn => ({
  conversationId: "c1",
  question: "Why?",
  runId: "r2",
  userMessageId: "u2",
  model: "llama3.2:latest",
  mode: "native",
  iterations: null,
  content: "Because",
  answering: true,
  activity: null,
  status: "streaming",
  error: null,
  usage: null,
  elapsedMs: null,
  stopping: false,
  lost: false,
  ...extra,
});

const summary = (items: ReturnType<typeof buildChatItems>) =>
  items.map((item) => (item.kind === "user" ? `user:${item.content}` : `assistant:${item.status}:${item.content}`));

describe("buildChatItems", () => {
  const history = [user("u1", "Hi"), assistant("a1", "r1", "Hello")];

  it("appends the live question and answer after the stored messages", () => {
    const items = buildChatItems({ messages: history, activeRunId: "r2", turn: turn() });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:streaming:Because"]);
  });

  it("shows the live question once when the store already has it", () => {
    const items = buildChatItems({ messages: [...history, user("u2", "Why?")], activeRunId: "r2", turn: turn() });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:streaming:Because"]);
  });

  it("lets the stored answer replace the live one once its run is stored, keeping the same row key", () => {
    const stored = [...history, user("u2", "Why?"), assistant("a2", "r2", "Because.")];
    const live = turn({ status: "complete", content: "Because." });
    const items = buildChatItems({ messages: stored, activeRunId: null, turn: live });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:complete:Because."]);
    const liveKey = buildChatItems({ messages: history, activeRunId: "r2", turn: turn() }).at(-1)?.key;
    expect(items.at(-1)?.key).toBe(liveKey);
  });

  it("shows a waiting placeholder for a run this page does not stream (after a reload)", () => {
    const items = buildChatItems({ messages: [...history, user("u2", "Why?")], activeRunId: "r2", turn: undefined });
    expect(items.at(-1)).toMatchObject({ kind: "assistant", status: "streaming", detached: true });
  });

  it("does not add a placeholder while the live turn waits for its run event", () => {
    const waiting = turn({ runId: null, userMessageId: null, content: "", answering: false });
    const items = buildChatItems({ messages: [...history, user("u2", "Why?")], activeRunId: "r2", turn: waiting });
    expect(items.filter((item) => item.kind === "assistant" && item.detached)).toEqual([]);
  });

  it("falls back to the placeholder when the stream was lost but the run still goes on", () => {
    const lost = turn({ status: "error", lost: true, error: "lost" });
    const items = buildChatItems({ messages: [...history, user("u2", "Why?")], activeRunId: "r2", turn: lost });
    expect(summary(items).slice(2)).toEqual(["user:Why?", "assistant:streaming:"]);
  });

  it("shows a stored error as a notice, without repeating it in the text", () => {
    const failed = assistant("a2", "r2", "Partial\n\n**Error:** model runner has unexpectedly stopped", {
      status: "error",
      run: run("r2", { status: "error", error: "model runner has unexpectedly stopped" }),
    });
    const [item] = buildChatItems({ messages: [failed], activeRunId: null, turn: undefined });
    expect(item).toMatchObject({
      status: "error",
      content: "Partial",
      error: "model runner has unexpectedly stopped",
    });
  });

  it("reuses the item objects of unchanged stored messages, so memoised rows skip re-rendering", () => {
    const first = buildChatItems({ messages: history, activeRunId: null, turn: undefined });
    const second = buildChatItems({ messages: history, activeRunId: "r2", turn: turn() });
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
  });
});
