import { describe, expect, it } from "vitest";
import { MessageTree } from "./message-tree";
import type { Message } from "./schema";

let clock = 0;
const message = (id: string, parentId: string | null, role: Message["role"], runId: string | null = null): Message => ({
  id,
  conversationId: "c",
  parentId,
  role,
  content: id,
  status: "complete",
  runId,
  attachmentIds: null,
  createdAt: ++clock,
});
const q = (id: string, parentId: string | null) => message(id, parentId, "user");
const a = (id: string, parentId: string, runId = `run-${id}`) => message(id, parentId, "assistant", runId);
const interrupt = (id: string, questionId: string, runId: string) => message(id, questionId, "user", runId);
const ids = (list: Message[]) => list.map((m) => m.id);

// q1 ─ a1 ─ q2 ─ a2 (run r2, took interrupt i2)
//   │        ├ a2b (regenerated: run r2b)
//   │        └ (i2 hangs under q2, run r2)
//   └ a1b    q2b (an edit of q2, under a1) ─ a3
// q1b (an edit of the first question) ─ a4
function sample(): MessageTree {
  return new MessageTree([
    q("q1", null),
    a("a1", "q1"),
    q("q2", "a1"),
    interrupt("i2", "q2", "run-a2"),
    a("a2", "q2"),
    a("a2b", "q2"),
    a("a1b", "q1"),
    q("q2b", "a1"),
    a("a3", "q2b"),
    q("q1b", null),
    a("a4", "q1b"),
  ]);
}

describe("the branch shown", () => {
  it("is the line from the first question down to the leaf, with each run's interrupts before its answer", () => {
    expect(ids(sample().path("a2"))).toEqual(["q1", "a1", "q2", "i2", "a2"]);
  });

  it("shows an interrupt only with the answer of its own run, not with another version of it", () => {
    expect(ids(sample().path("a2b"))).toEqual(["q1", "a1", "q2", "a2b"]);
  });

  it("ends at a question whose run still works, with the interrupts that run took so far", () => {
    const tree = new MessageTree([q("q1", null), a("a1", "q1"), interrupt("i1", "q1", "run-live")]);
    expect(ids(tree.path("q1"))).toEqual(["q1", "i1"]);
  });

  it("is empty without a leaf, and a broken parent link ends it instead of looping", () => {
    expect(sample().path(null)).toEqual([]);
    const loop = new MessageTree([q("x", "y"), a("y", "x")]);
    expect(ids(loop.path("y"))).toEqual(["x", "y"]);
  });
});

describe("versions", () => {
  it("are the children of the same parent with the same role, oldest first", () => {
    const tree = sample();
    const of = (id: string) => tree.versions(tree.get(id) as Message);
    expect(of("a2")).toEqual(["a2", "a2b"]);
    expect(of("q2b")).toEqual(["q2", "q2b"]);
    expect(of("a1")).toEqual(["a1", "a1b"]);
    expect(of("q1b")).toEqual(["q1", "q1b"]);
    expect(of("a3")).toEqual(["a3"]);
  });

  it("an interrupt is never a version of anything", () => {
    const tree = sample();
    expect(tree.versions(tree.get("i2") as Message)).toEqual(["i2"]);
    expect(tree.versions(tree.get("a2") as Message)).not.toContain("i2");
  });
});

describe("opening a message", () => {
  it("shows the newest branch below it", () => {
    const tree = sample();
    expect(tree.leafThrough("q1")).toBe("a1b");
    expect(tree.leafThrough("a1")).toBe("a3");
    expect(tree.leafThrough("q2")).toBe("a2b");
    expect(tree.leafThrough("a2")).toBe("a2");
  });

  it("opening an interrupt shows the answer of its run", () => {
    expect(sample().leafThrough("i2")).toBe("a2");
  });
});
