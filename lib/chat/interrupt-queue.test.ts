import { describe, expect, it } from "vitest";
import type { Interrupt } from "@/lib/protocol/run-events";
import { type EnqueueResult, InterruptQueue } from "./interrupt-queue";

const texts = (interrupts: { text: string }[]) => interrupts.map((interrupt) => interrupt.text);
const outcome = (result: EnqueueResult) => ("accepted" in result ? "accepted" : result.refused);

describe("InterruptQueue", () => {
  it("takes at most maxCount interrupts over the run's life, drained or not", async () => {
    const queue = new InterruptQueue({ maxCount: 2, maxBytes: 1000 });
    expect(outcome(await queue.enqueue("one"))).toBe("accepted");
    expect(texts(queue.drain())).toEqual(["one"]);
    expect(outcome(await queue.enqueue("two"))).toBe("accepted");
    expect(outcome(await queue.enqueue("three"))).toBe("too_many");
    expect(texts(queue.drain())).toEqual(["two"]);
  });

  it("takes at most maxBytes of interrupts in UTF-8, the boundary included", async () => {
    const queue = new InterruptQueue({ maxCount: 10, maxBytes: 10 });
    expect(outcome(await queue.enqueue("ああ"))).toBe("accepted"); // 6 bytes
    expect(outcome(await queue.enqueue("xxxxx"))).toBe("too_large");
    expect(outcome(await queue.enqueue("xxxx"))).toBe("accepted");
    expect(outcome(await queue.enqueue("x"))).toBe("too_large");
    expect(texts(queue.close())).toEqual(["ああ", "xxxx"]);
  });

  it("refuses everything once closed, and a refused interrupt is not kept", async () => {
    const queue = new InterruptQueue({ maxCount: 1, maxBytes: 1000 });
    expect(outcome(await queue.enqueue("kept"))).toBe("accepted");
    expect(outcome(await queue.enqueue("refused"))).toBe("too_many");
    expect(texts(queue.close())).toEqual(["kept"]);
    expect(outcome(await queue.enqueue("late"))).toBe("closed");
    expect(queue.size).toBe(0);
  });

  it("gives each accepted interrupt its own id, also to two with the same text, and drains it with that id", async () => {
    const queue = new InterruptQueue({ maxCount: 10, maxBytes: 1000 });
    const first = await queue.enqueue("yes");
    const second = await queue.enqueue("yes");
    if (!("accepted" in first) || !("accepted" in second)) throw new Error("refused");
    expect(first.accepted.id).not.toBe(second.accepted.id);
    expect(queue.drain()).toEqual([first.accepted, second.accepted]);
  });

  it("stores an accepted interrupt before queuing it; a failed store queues nothing and counts nothing", async () => {
    const queue = new InterruptQueue({ maxCount: 1, maxBytes: 1000 });
    const stored: string[] = [];
    const failing = {
      store: async () => {
        throw new Error("database is locked");
      },
      remove: async () => {},
    };
    await expect(queue.enqueue("lost?", failing)).rejects.toThrow("database is locked");
    expect(queue.size).toBe(0);
    const storing = {
      store: async (interrupt: Interrupt) => {
        expect(queue.size).toBe(0);
        stored.push(interrupt.text);
      },
      remove: async () => {},
    };
    expect(outcome(await queue.enqueue("kept", storing))).toBe("accepted");
    expect(stored).toEqual(["kept"]);
    expect(texts(queue.drain())).toEqual(["kept"]);
  });

  it("interrupts sent together cannot all pass the caps while they are being stored", async () => {
    const queue = new InterruptQueue({ maxCount: 2, maxBytes: 1000 });
    const results = await Promise.all(["a", "b", "c"].map((text) => queue.enqueue(text)));
    expect(results.map(outcome)).toEqual(["accepted", "accepted", "too_many"]);
  });

  it("an interrupt whose run ends while it is being stored is neither taken nor handed on: refused, its row removed", async () => {
    const queue = new InterruptQueue({ maxCount: 5, maxBytes: 1000 });
    let storedRow = () => {};
    const rowStored = new Promise<void>((resolve) => {
      storedRow = resolve;
    });
    const removed: string[] = [];
    const enqueued = queue.enqueue("late", {
      store: () => rowStored,
      remove: async (interrupt) => {
        removed.push(interrupt.text);
      },
    });
    // The run ends, handing what it has not taken to the next turn, before the row is stored.
    expect(queue.close()).toEqual([]);
    storedRow();
    expect(outcome(await enqueued)).toBe("closed");
    expect(removed).toEqual(["late"]);
  });
});
