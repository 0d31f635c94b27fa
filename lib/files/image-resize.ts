import "server-only";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { type DecodeLimits, decodeInChild } from "./image-decode";
import { checkImage, inspectImage } from "./image-inspect";

/**
 * Prepares an image attachment for a vision model (not a tool): the longer side is brought down to
 * `maxSide`, re-encoded as JPEG (or WebP) at `quality`. The image's frames are checked first
 * (image-inspect.ts): one over `maxPixels` or too many frames is refused with a 413, an unreadable
 * file with a 415 — files stored before uploads were checked get the same treatment. Decoding runs
 * in a child process (image-decode.ts); its failure is a 415 for this image, never a server crash.
 * A JPEG already small enough is sent as it is, without decoding.
 */
export async function resizeForVision(
  bytes: Buffer,
  {
    maxSide = 1024,
    quality = 85,
    maxPixels,
    maxFrames,
    format = "image/jpeg",
    decode,
  }: {
    maxSide?: number;
    quality?: number;
    maxPixels: number;
    /** Defaults to MAX_IMAGE_FRAMES. */
    maxFrames?: number;
    format?: "image/jpeg" | "image/webp";
    /** Defaults to the IMAGE_DECODE_* settings. */
    decode?: Partial<DecodeLimits>;
  },
): Promise<{ bytes: Buffer; width: number; height: number; resized: boolean }> {
  const config = getConfig();
  const image = checkImage(bytes, { maxPixels, maxFrames: maxFrames ?? config.MAX_IMAGE_FRAMES });
  const { width, height } = image.declared;
  if (image.format === "jpeg" && Math.max(width, height) <= maxSide) {
    return { bytes, width, height, resized: false };
  }
  const outcome = await decodeInChild(
    { bytes, maxSide, quality, format },
    {
      timeoutMs: config.IMAGE_DECODE_TIMEOUT_S * 1000,
      memoryMb: config.IMAGE_DECODE_MEMORY_MB,
      concurrency: config.IMAGE_DECODE_CONCURRENCY,
      ...decode,
    },
  );
  if (!outcome.ok) {
    throw new AppError("unsupported_media_type:image_decode", `The image cannot be prepared: ${outcome.message}.`, {
      retryable: outcome.reason === "timeout",
      details: { reason: outcome.reason },
    });
  }
  return { bytes: outcome.bytes, width: outcome.width, height: outcome.height, resized: true };
}

/** Width and height the PNG, GIF, WebP or JPEG declares, without decoding; null if it cannot be read. */
export function imageSize(bytes: Buffer): { width: number; height: number } | null {
  const inspection = inspectImage(bytes);
  return inspection.ok ? inspection.declared : null;
}
