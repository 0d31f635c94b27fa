import { describe, expect, it } from "vitest";
import { InterruptQueue } from "./interrupt-queue";

describe("InterruptQueue", () => {
  it("takes at most maxCount follow-ups over the run's life, drained or not", () => {
    const queue = new InterruptQueue({ maxCount: 2, maxBytes: 1000 });
    expect(queue.enqueue("one")).toBe("queued");
    expect(queue.drain()).toEqual(["one"]);
    expect(queue.enqueue("two")).toBe("queued");
    expect(queue.enqueue("three")).toBe("too_many");
    expect(queue.drain()).toEqual(["two"]);
  });

  it("takes at most maxBytes of follow-ups in UTF-8, the boundary included", () => {
    const queue = new InterruptQueue({ maxCount: 10, maxBytes: 10 });
    expect(queue.enqueue("ああ")).toBe("queued"); // 6 bytes
    expect(queue.enqueue("xxxxx")).toBe("too_large");
    expect(queue.enqueue("xxxx")).toBe("queued");
    expect(queue.enqueue("x")).toBe("too_large");
    expect(queue.close()).toEqual(["ああ", "xxxx"]);
  });

  it("refuses everything once closed, and a refused follow-up is not queued", () => {
    const queue = new InterruptQueue({ maxCount: 1, maxBytes: 1000 });
    expect(queue.enqueue("kept")).toBe("queued");
    expect(queue.enqueue("refused")).toBe("too_many");
    expect(queue.close()).toEqual(["kept"]);
    expect(queue.enqueue("late")).toBe("closed");
    expect(queue.size).toBe(0);
  });
});
