import { AppError } from "@/lib/errors";
import { scanGif } from "./image-formats/gif";
import { scanJpeg } from "./image-formats/jpeg";
import { scanPng } from "./image-formats/png";
import { type FrameScan, ImageStructureError } from "./image-formats/structure";
import { scanWebp } from "./image-formats/webp";
import { sniffFileType } from "./sniff";

/**
 * What an image will cost to decode, read from its structure alone (no pixel is decoded): every
 * frame of a PNG/APNG, GIF, WebP or JPEG, not just the size in its header. A decoder allocates for
 * each frame, so a 34-byte GIF with a 1×1 screen and a 30000×30000 frame is a 3.6 GB allocation.
 */

export type ImageFormat = "png" | "gif" | "webp" | "jpeg";

export type ImageInspection =
  | ({ ok: true; format: ImageFormat } & FrameScan)
  | { ok: false; format: ImageFormat | null; problem: string };

const SCANNERS: Record<string, { format: ImageFormat; scan: (bytes: Buffer) => FrameScan }> = {
  "image/png": { format: "png", scan: scanPng },
  "image/gif": { format: "gif", scan: scanGif },
  "image/webp": { format: "webp", scan: scanWebp },
  "image/jpeg": { format: "jpeg", scan: scanJpeg },
};

export function inspectImage(bytes: Buffer): ImageInspection {
  const scanner = SCANNERS[sniffFileType(bytes)?.mime ?? ""];
  if (!scanner) return { ok: false, format: null, problem: "it is not a PNG, JPEG, GIF or WebP image" };
  try {
    return { ok: true, format: scanner.format, ...scanner.scan(bytes) };
  } catch (error) {
    if (error instanceof ImageStructureError) return { ok: false, format: scanner.format, problem: error.problem };
    throw error;
  }
}

export interface ImageLimits {
  /** MAX_IMAGE_PIXELS: no frame, and no canvas holding the frames, may be larger. */
  maxPixels: number;
  /** MAX_IMAGE_FRAMES: animated images with more frames are refused. */
  maxFrames: number;
}

/**
 * The inspection of an image that may be decoded, or the refusal as an `AppError`: 413 for an image
 * over the pixel or frame limits, 415 for a file that cannot be read (truncated, malformed).
 */
export function checkImage(bytes: Buffer, limits: ImageLimits): Extract<ImageInspection, { ok: true }> {
  const inspection = inspectImage(bytes);
  if (!inspection.ok) {
    throw new AppError("unsupported_media_type:image", `The image cannot be read: ${inspection.problem}.`);
  }
  const { declared, extent } = inspection;
  const pixels = extent.width * extent.height;
  if (pixels > limits.maxPixels) {
    const size = `${extent.width}×${extent.height} pixels (${count(pixels)} pixels)`;
    const grown = extent.width !== declared.width || extent.height !== declared.height;
    throw new AppError(
      "payload_too_large:image_pixels",
      grown
        ? `The image declares ${declared.width}×${declared.height} pixels, but its frames need ${size}; the limit is ${count(limits.maxPixels)} pixels.`
        : `The image is ${size}; the limit is ${count(limits.maxPixels)} pixels.`,
      { details: { width: extent.width, height: extent.height, pixels, maxPixels: limits.maxPixels } },
    );
  }
  if (inspection.frames > limits.maxFrames) {
    throw new AppError(
      "payload_too_large:image_frames",
      `The image has ${count(inspection.frames)} frames; the limit is ${count(limits.maxFrames)} frames.`,
      { details: { frames: inspection.frames, maxFrames: limits.maxFrames } },
    );
  }
  return inspection;
}

const count = (value: number) => value.toLocaleString("en-US");
