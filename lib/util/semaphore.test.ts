import { describe, expect, it } from "vitest";
import { Semaphore } from "./semaphore";

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires in the background, recording the order in which the callers get their slot. */
function queue(slots: Semaphore, order: string[]) {
  return (name: string, limit: number, signal?: AbortSignal) =>
    slots.acquire(limit, signal).then((release) => {
      order.push(name);
      return release;
    });
}

describe("Semaphore", () => {
  it("lets at most `limit` callers hold a slot at once", async () => {
    const slots = new Semaphore();
    const order: string[] = [];
    const take = queue(slots, order);
    const held = await Promise.all([take("a", 2), take("b", 2)]);
    const third = take("c", 2);
    await settle();
    expect(order).toEqual(["a", "b"]);
    expect(slots.busy).toBe(2);
    held[0]!();
    (await third)();
    expect(order).toEqual(["a", "b", "c"]);
    held[1]!();
    expect(slots.busy).toBe(0);
  });

  it("hands freed slots to the waiters in the order they came (FIFO)", async () => {
    const slots = new Semaphore();
    const order: string[] = [];
    const take = queue(slots, order);
    const first = await take("first", 1);
    const waiters = ["w1", "w2", "w3"].map((name) => take(name, 1));
    await settle();
    first();
    for (const waiter of waiters) (await waiter)();
    expect(order).toEqual(["first", "w1", "w2", "w3"]);
  });

  it("a newcomer never passes a waiter, even when it arrives as a slot is freed", async () => {
    const slots = new Semaphore();
    const order: string[] = [];
    const take = queue(slots, order);
    const first = await take("first", 1);
    const waiter = take("waiter", 1);
    await settle();
    first();
    const newcomer = take("newcomer", 1);
    (await waiter)();
    (await newcomer)();
    expect(order).toEqual(["first", "waiter", "newcomer"]);
  });

  it("a raised limit lets those already waiting in first, in order: a newcomer never passes them", async () => {
    const slots = new Semaphore();
    const order: string[] = [];
    const first = await slots.acquire(1);
    const admit = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const waiter = slots.acquire(1).then(admit("waiter"));
    const newcomer = slots.acquire(2).then(admit("newcomer"));
    await settle();
    expect(order).toEqual(["waiter"]);
    first();
    await newcomer;
    expect(order).toEqual(["waiter", "newcomer"]);
    (await waiter)();
  });

  it("a lowered limit holds the next waiter back until enough slots are freed", async () => {
    const slots = new Semaphore();
    const order: string[] = [];
    const take = queue(slots, order);
    const held = await Promise.all([take("a", 2), take("b", 2)]);
    const waiter = take("c", 1);
    held[0]!();
    await settle();
    expect(order).toEqual(["a", "b"]);
    held[1]!();
    (await waiter)();
    expect(order).toEqual(["a", "b", "c"]);
  });

  it("a release called twice frees one slot", async () => {
    const slots = new Semaphore();
    const release = await slots.acquire(1);
    const other = await new Promise<() => void>((resolve) => {
      void slots.acquire(1).then(resolve);
      release();
      release();
    });
    expect(slots.busy).toBe(1);
    other();
    expect(slots.busy).toBe(0);
  });

  it("an aborted waiter leaves the queue with the signal's reason, and the slot goes to the next", async () => {
    const slots = new Semaphore();
    const order: string[] = [];
    const take = queue(slots, order);
    const first = await take("first", 1);
    const controller = new AbortController();
    const aborted = take("aborted", 1, controller.signal);
    const next = take("next", 1);
    await settle();
    controller.abort(new Error("stopped"));
    await expect(aborted).rejects.toThrow("stopped");
    expect(slots.waiting).toBe(1);
    first();
    (await next)();
    expect(order).toEqual(["first", "next"]);
    expect(slots.busy).toBe(0);
  });

  it("an already aborted signal takes no slot", async () => {
    const slots = new Semaphore();
    await expect(slots.acquire(1, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
    expect(slots.busy).toBe(0);
  });
});
