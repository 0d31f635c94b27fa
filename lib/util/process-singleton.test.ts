import { describe, expect, it, vi } from "vitest";
import { keyedSingleton, processSingleton, processSlot } from "./process-singleton";

/** A fresh copy of the module, as a second route bundle or a hot reload would load it. */
async function anotherCopy(): Promise<typeof import("./process-singleton")> {
  vi.resetModules();
  return import("./process-singleton");
}

describe("process singletons", () => {
  it("a singleton is made once and is the same value on every call", () => {
    const create = vi.fn(() => ({ made: true }));
    const get = processSingleton("test.identity", create);
    expect(get()).toBe(get());
    expect(create).toHaveBeenCalledTimes(1);
  });

  it("another copy of the module finds the same value (hot reload, route bundles)", async () => {
    const first = processSingleton("test.copies", () => ({ copy: 1 }))();
    const copy = await anotherCopy();
    expect(copy.processSingleton).not.toBe(processSingleton);
    expect(copy.processSingleton("test.copies", () => ({ copy: 2 }))()).toBe(first);
    expect(copy.processSlot("test.copies").get()).toBe(first);
  });

  it("different names are different values", () => {
    expect(processSingleton("test.a", () => ({}))()).not.toBe(processSingleton("test.b", () => ({}))());
  });

  it("a slot holds what its owner set until it is cleared, for every copy", async () => {
    const slot = processSlot<{ id: number }>("test.slot");
    expect(slot.get()).toBeUndefined();
    const value = { id: 1 };
    slot.set(value);
    expect((await anotherCopy()).processSlot("test.slot").get()).toBe(value);
    slot.set(undefined);
    expect(slot.get()).toBeUndefined();
  });

  it("a keyed singleton is kept while its key holds and made again when the key changes", () => {
    const get = keyedSingleton<{ key: string }>("test.keyed");
    const a = get("a", () => ({ key: "a" }));
    expect(get("a", () => ({ key: "a again" }))).toBe(a);
    const b = get("b", () => ({ key: "b" }));
    expect(b).not.toBe(a);
    expect(b.key).toBe("b");
  });
});
