/**
 * Shared pieces of the image structure readers (png.ts, gif.ts, webp.ts, jpeg.ts): they walk a file's
 * blocks without decoding any pixels and report every frame a decoder could allocate.
 */

/** The file cannot be read as the format it claims; `problem` finishes "The image cannot be read: …". */
export class ImageStructureError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = "ImageStructureError";
  }
}

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface FrameScan {
  /** The size the file declares (PNG IHDR, GIF logical screen, WebP canvas, JPEG first frame). */
  declared: { width: number; height: number };
  /** The smallest canvas holding the declared size and every frame at its offset. */
  extent: { width: number; height: number };
  largestFrame: { width: number; height: number };
  frames: number;
}

/**
 * Collects the frames a reader meets. It keeps a count and running maxima, never the frames
 * themselves, so a file of a million tiny frames costs no memory.
 */
export class FrameTally {
  private declared: { width: number; height: number } | undefined;
  private extentWidth = 0;
  private extentHeight = 0;
  private largest = { width: 0, height: 0 };
  private count = 0;
  private announced = 0;

  constructor(private readonly what: string) {}

  declare(width: number, height: number, what = this.what): void {
    requirePositive(width, height, what);
    this.declared = { width, height };
    this.grow({ left: 0, top: 0, width, height });
  }

  frame(rect: Rect, what = "a frame"): void {
    requirePositive(rect.width, rect.height, what);
    this.count += 1;
    if (rect.width * rect.height > this.largest.width * this.largest.height) {
      this.largest = { width: rect.width, height: rect.height };
    }
    this.grow(rect);
  }

  /** Counts frames the file announces (APNG acTL) beyond the ones it holds. */
  announce(frames: number): void {
    this.announced = Math.max(this.announced, frames);
  }

  /** Frames met so far (announced ones not included). */
  get frames(): number {
    return this.count;
  }

  result(): FrameScan {
    if (!this.declared) throw new ImageStructureError(`it has no ${this.what}`);
    if (this.count === 0) throw new ImageStructureError("it holds no image");
    return {
      declared: this.declared,
      extent: { width: this.extentWidth, height: this.extentHeight },
      largestFrame: this.largest,
      frames: Math.max(this.count, this.announced),
    };
  }

  private grow(rect: Rect): void {
    this.extentWidth = Math.max(this.extentWidth, rect.left + rect.width);
    this.extentHeight = Math.max(this.extentHeight, rect.top + rect.height);
  }
}

function requirePositive(width: number, height: number, what: string): void {
  if (width <= 0 || height <= 0) throw new ImageStructureError(`${what} is ${width}×${height} pixels`);
}

/** Throws "truncated" unless `length` bytes from `offset` are in the file. */
export function need(bytes: Buffer, offset: number, length: number, what: string): void {
  if (offset + length > bytes.length) throw new ImageStructureError(`the file ends inside ${what} (truncated)`);
}

export function latin1(bytes: Buffer, offset: number, length: number): string {
  return bytes.subarray(offset, offset + length).toString("latin1");
}
