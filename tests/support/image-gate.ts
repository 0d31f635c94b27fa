/**
 * Holds image preparation for vision models at a gate, so a test can act while a chat is still
 * starting (after its checks, before its run exists), without relying on how long resizing takes.
 * Use it from a test file with:
 *   vi.mock("@/lib/files/image-resize", async (original) =>
 *     (await import("@/tests/support/image-gate")).gatedImageResize(await original()));
 */
let closed = false;
/** The preparations waiting, oldest first. */
const held: (() => void)[] = [];

export const imageGate = {
  /** Image preparations started from now on wait until `open()` (or `letOneThrough()`). */
  close(): void {
    closed = true;
  },
  open(): void {
    closed = false;
    for (const release of held.splice(0)) release();
  },
  /** Lets the oldest waiting preparation go on; the gate stays closed for the others. */
  letOneThrough(): void {
    held.shift()?.();
  },
  /** How many image preparations are waiting at the gate. */
  get waiting(): number {
    return held.length;
  },
};

type Resize = (...args: never[]) => Promise<unknown>;

export function gatedImageResize<Module extends { resizeForVision: Resize }>(real: Module): Module {
  const resizeForVision = async (...args: Parameters<Module["resizeForVision"]>) => {
    if (closed) await new Promise<void>((resolve) => held.push(resolve));
    return real.resizeForVision(...args);
  };
  return { ...real, resizeForVision };
}
