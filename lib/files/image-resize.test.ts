import { createCanvas } from "@napi-rs/canvas";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import {
  insertBeforeEoi,
  jpegSof,
  makeAnimatedWebp,
  makeGif,
  makeGifBomb,
  makePng,
} from "@/tests/support/image-fixtures";
import { imageSize, resizeForVision } from "./image-resize";

function encoded(format: "png" | "jpeg" | "webp", width: number, height: number): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#3366ff";
  context.fillRect(0, 0, width, height);
  // biome-ignore lint/suspicious/noExplicitAny: encodeSync's overloads take one format at a time
  return Buffer.from(canvas.encodeSync(format as any, 90));
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the image was accepted");
}

describe("image preparation for vision models", () => {
  it("reads the size from the header without decoding", () => {
    expect(imageSize(encoded("png", 300, 200))).toEqual({ width: 300, height: 200 });
    expect(imageSize(encoded("jpeg", 64, 48))).toEqual({ width: 64, height: 48 });
    expect(imageSize(Buffer.from("not an image"))).toBeNull();
  });

  it("brings the longer side down to 1024 and re-encodes as JPEG", async () => {
    const result = await resizeForVision(encoded("png", 3000, 1500), { maxPixels: 16_000_000 });
    expect(result).toMatchObject({ width: 1024, height: 512, resized: true });
    expect(result.bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(imageSize(result.bytes)).toEqual({ width: 1024, height: 512 });
  });

  it.each([
    ["a JPEG", () => encoded("jpeg", 2000, 1000)],
    ["a WebP", () => encoded("webp", 2000, 1000)],
    ["a GIF", () => makeGif({ screen: { width: 2000, height: 1000 }, frames: [{ width: 2000, height: 1000 }] })],
    [
      "an animated GIF",
      () =>
        makeGif({
          screen: { width: 2000, height: 1000 },
          frames: [
            { width: 2000, height: 1000 },
            { width: 10, height: 10 },
          ],
        }),
    ],
  ])("resizes %s", async (_, make) => {
    const result = await resizeForVision(make(), { maxPixels: 16_000_000 });
    expect(result).toMatchObject({ width: 1024, height: 512, resized: true });
    expect(imageSize(result.bytes)).toEqual({ width: 1024, height: 512 });
  });

  it("keeps the GIF's colours: the decoded frame is red, not blank", async () => {
    const gif = makeGif({ screen: { width: 40, height: 20 }, frames: [{ width: 40, height: 20 }], colorIndex: 1 });
    const { bytes } = await resizeForVision(gif, { maxPixels: 16_000_000 });
    const { loadImage } = await import("@napi-rs/canvas");
    const image = await loadImage(bytes);
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    const [red, green, blue] = context.getImageData(20, 10, 1, 1).data;
    expect(red).toBeGreaterThan(200);
    expect(green).toBeLessThan(60);
    expect(blue).toBeLessThan(60);
  });

  it("honours the quality setting and WebP", async () => {
    const source = encoded("png", 800, 800);
    const low = await resizeForVision(source, { maxPixels: 16_000_000, maxSide: 400, quality: 20 });
    const webp = await resizeForVision(source, { maxPixels: 16_000_000, maxSide: 400, format: "image/webp" });
    expect(low.width).toBe(400);
    expect(webp.bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
  });

  it("sends a JPEG that is small enough as it is, without decoding", async () => {
    const jpeg = encoded("jpeg", 640, 480);
    const result = await resizeForVision(jpeg, { maxPixels: 16_000_000, decode: { memoryMb: 1, timeoutMs: 1 } });
    expect(result).toEqual({ bytes: jpeg, width: 640, height: 480, resized: false });
  });

  it("refuses an image above MAX_IMAGE_PIXELS with a 413 instead of passing it on", async () => {
    const error = await refusal(resizeForVision(encoded("png", 2000, 2000), { maxPixels: 1_000_000 }));
    expect(error.code).toBe("payload_too_large:image_pixels");
    expect(error.message).toBe("The image is 2000×2000 pixels (4,000,000 pixels); the limit is 1,000,000 pixels.");
  });

  it.each([
    ["the 34-byte GIF with a 30000×30000 frame", makeGifBomb, 413],
    [
      "a GIF with 2000 frames",
      () =>
        makeGif({
          screen: { width: 1, height: 1 },
          frames: Array.from({ length: 2000 }, () => ({ width: 1, height: 1 })),
        }),
      413,
    ],
    [
      "an APNG whose second frame is huge",
      () => makePng({ width: 1, height: 1, animation: [{ width: 20000, height: 20000 }] }),
      413,
    ],
    [
      "a WebP with an ANMF frame over the limit",
      () => makeAnimatedWebp({ canvas: { width: 1, height: 1 }, frames: [{ width: 16000, height: 16000 }] }),
      413,
    ],
    [
      "a JPEG with a second SOF over the limit",
      () => insertBeforeEoi(encoded("jpeg", 64, 48), jpegSof(65535, 65535)),
      413,
    ],
    ["a truncated PNG", () => encoded("png", 300, 200).subarray(0, 200), 415],
    ["a truncated JPEG", () => encoded("jpeg", 300, 200).subarray(0, 300), 415],
  ])("refuses %s before decoding it", async (_, make, status) => {
    const error = await refusal(resizeForVision(make(), { maxPixels: 16_000_000, maxFrames: 1000 }));
    expect(error.status).toBe(status);
  });

  it("turns a decoder failure into a 415 for this image", async () => {
    const error = await refusal(
      resizeForVision(encoded("png", 4000, 4000), { maxPixels: 16_000_000, decode: { timeoutMs: 1 } }),
    );
    expect(error).toMatchObject({ status: 415, code: "unsupported_media_type:image_decode", retryable: true });
    expect(error.message).toBe("The image cannot be prepared: decoding it took longer than 0.001 s and was stopped.");
  });
});
