import { describe, expect, it } from "vitest";
import { type EnqueueResult, InterruptQueue } from "./interrupt-queue";

const texts = (interrupts: { text: string }[]) => interrupts.map((interrupt) => interrupt.text);
const outcome = (result: EnqueueResult) => ("accepted" in result ? "accepted" : result.refused);

describe("InterruptQueue", () => {
  it("takes at most maxCount interrupts over the run's life, drained or not", () => {
    const queue = new InterruptQueue({ maxCount: 2, maxBytes: 1000 });
    expect(outcome(queue.enqueue("one"))).toBe("accepted");
    expect(texts(queue.drain())).toEqual(["one"]);
    expect(outcome(queue.enqueue("two"))).toBe("accepted");
    expect(outcome(queue.enqueue("three"))).toBe("too_many");
    expect(texts(queue.drain())).toEqual(["two"]);
  });

  it("takes at most maxBytes of interrupts in UTF-8, the boundary included", () => {
    const queue = new InterruptQueue({ maxCount: 10, maxBytes: 10 });
    expect(outcome(queue.enqueue("ああ"))).toBe("accepted"); // 6 bytes
    expect(outcome(queue.enqueue("xxxxx"))).toBe("too_large");
    expect(outcome(queue.enqueue("xxxx"))).toBe("accepted");
    expect(outcome(queue.enqueue("x"))).toBe("too_large");
    expect(texts(queue.close())).toEqual(["ああ", "xxxx"]);
  });

  it("refuses everything once closed, and a refused interrupt is not kept", () => {
    const queue = new InterruptQueue({ maxCount: 1, maxBytes: 1000 });
    expect(outcome(queue.enqueue("kept"))).toBe("accepted");
    expect(outcome(queue.enqueue("refused"))).toBe("too_many");
    expect(texts(queue.close())).toEqual(["kept"]);
    expect(outcome(queue.enqueue("late"))).toBe("closed");
    expect(queue.size).toBe(0);
  });

  it("gives each accepted interrupt its own id, also to two with the same text, and drains it with that id", () => {
    const queue = new InterruptQueue({ maxCount: 10, maxBytes: 1000 });
    const first = queue.enqueue("yes");
    const second = queue.enqueue("yes");
    if (!("accepted" in first) || !("accepted" in second)) throw new Error("refused");
    expect(first.accepted.id).not.toBe(second.accepted.id);
    expect(queue.drain()).toEqual([first.accepted, second.accepted]);
  });

  it("stores an accepted interrupt before queuing it; a failed store queues nothing and counts nothing", () => {
    const queue = new InterruptQueue({ maxCount: 1, maxBytes: 1000 });
    const stored: string[] = [];
    expect(() =>
      queue.enqueue("lost?", () => {
        throw new Error("database is locked");
      }),
    ).toThrow("database is locked");
    expect(queue.size).toBe(0);
    expect(outcome(queue.enqueue("kept", (interrupt) => stored.push(interrupt.text)))).toBe("accepted");
    expect(stored).toEqual(["kept"]);
    expect(texts(queue.drain())).toEqual(["kept"]);
  });
});
