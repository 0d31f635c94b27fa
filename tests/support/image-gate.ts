/**
 * Holds image preparation for vision models at a gate, so a test can act while a chat is still
 * starting (after its checks, before its run exists), without relying on how long resizing takes.
 * Use it from a test file with:
 *   vi.mock("@/lib/files/image-resize", async (original) =>
 *     (await import("@/tests/support/image-gate")).gatedImageResize(await original()));
 */
let opened: Promise<void> = Promise.resolve();
let release = () => {};
let waiting = 0;

export const imageGate = {
  /** Image preparations started from now on wait until `open()`. */
  close(): void {
    opened = new Promise((resolve) => {
      release = resolve;
    });
  },
  open(): void {
    release();
    opened = Promise.resolve();
  },
  /** How many image preparations are waiting at the gate. */
  get waiting(): number {
    return waiting;
  },
};

type Resize = (...args: never[]) => Promise<unknown>;

export function gatedImageResize<Module extends { resizeForVision: Resize }>(real: Module): Module {
  const resizeForVision = async (...args: Parameters<Module["resizeForVision"]>) => {
    waiting++;
    try {
      await opened;
    } finally {
      waiting--;
    }
    return real.resizeForVision(...args);
  };
  return { ...real, resizeForVision };
}
