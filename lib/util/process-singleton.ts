/**
 * The one way to keep a value once per process. Next.js may evaluate a module more than once in one
 * process (dev's hot reload re-runs it; route bundles each load their own copy), so a module-level
 * variable would give each copy its own value: two database pools, two sets of live runs. The value
 * lives on `globalThis` instead, under a symbol registered by name (`Symbol.for`), which every copy
 * of a module finds again.
 */

const store = globalThis as unknown as Record<symbol, unknown>;
const keyOf = (name: string) => Symbol.for(`ollama-web.${name}`);

/** A process-wide place for one value, set and cleared by its owner (the database, the cluster). */
export interface ProcessSlot<T> {
  get(): T | undefined;
  set(value: T | undefined): void;
}

export function processSlot<T>(name: string): ProcessSlot<T> {
  const key = keyOf(name);
  return {
    get: () => store[key] as T | undefined,
    set: (value) => {
      store[key] = value;
    },
  };
}

/** The process's one value under `name`, made by `create` on first use. */
export function processSingleton<T>(name: string, create: () => T): () => T {
  const slot = processSlot<T>(name);
  return () => {
    let value = slot.get();
    if (value === undefined) {
      value = create();
      slot.set(value);
    }
    return value;
  };
}

/**
 * The process's one value under `name` for the settings it was made from (`key`): made again by
 * `create` when the key changes (a test or an operator changed the configuration).
 */
export function keyedSingleton<T>(name: string): (key: string, create: () => T) => T {
  const slot = processSlot<{ key: string; value: T }>(name);
  return (key, create) => {
    const held = slot.get();
    if (held?.key === key) return held.value;
    const value = create();
    slot.set({ key, value });
    return value;
  };
}
