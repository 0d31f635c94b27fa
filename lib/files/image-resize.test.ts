import { createCanvas } from "@napi-rs/canvas";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { CRAFTED_IMAGES, encodedImage, makeGif } from "@/tests/support/image-fixtures";
import { imageSize, resizeForVision } from "./image-resize";

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
    expect(imageSize(encodedImage("png", 300, 200))).toEqual({ width: 300, height: 200 });
    expect(imageSize(encodedImage("jpeg", 64, 48))).toEqual({ width: 64, height: 48 });
    expect(imageSize(Buffer.from("not an image"))).toBeNull();
  });

  it("brings the longer side down to 1024 and re-encodes as JPEG", async () => {
    const result = await resizeForVision(encodedImage("png", 3000, 1500), { maxPixels: 16_000_000 });
    expect(result).toMatchObject({ width: 1024, height: 512, resized: true });
    expect(result.bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(imageSize(result.bytes)).toEqual({ width: 1024, height: 512 });
  });

  it.each([
    ["a JPEG", () => encodedImage("jpeg", 2000, 1000)],
    ["a WebP", () => encodedImage("webp", 2000, 1000)],
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
    const source = encodedImage("png", 800, 800);
    const low = await resizeForVision(source, { maxPixels: 16_000_000, maxSide: 400, quality: 20 });
    const webp = await resizeForVision(source, { maxPixels: 16_000_000, maxSide: 400, format: "image/webp" });
    expect(low.width).toBe(400);
    expect(webp.bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
  });

  it("sends a JPEG that is small enough as it is, without decoding", async () => {
    const jpeg = encodedImage("jpeg", 640, 480);
    const result = await resizeForVision(jpeg, { maxPixels: 16_000_000, decode: { memoryMb: 1, timeoutMs: 1 } });
    expect(result).toEqual({ bytes: jpeg, width: 640, height: 480, resized: false });
  });

  it("refuses an image above MAX_IMAGE_PIXELS with a 413 instead of passing it on", async () => {
    const error = await refusal(resizeForVision(encodedImage("png", 2000, 2000), { maxPixels: 1_000_000 }));
    expect(error.code).toBe("payload_too_large:image_pixels");
    expect(error.message).toBe("The image is 2000×2000 pixels (4,000,000 pixels); the limit is 1,000,000 pixels.");
  });

  it.each(CRAFTED_IMAGES)("refuses $name before decoding it", async ({ make, status, code }) => {
    const error = await refusal(resizeForVision(make(), { maxPixels: 16_000_000, maxFrames: 1000 }));
    expect({ status: error.status, code: error.code }).toEqual({ status, code });
  });

  it("turns a decoder failure into a 415 for this image", async () => {
    const error = await refusal(
      resizeForVision(encodedImage("png", 4000, 4000), { maxPixels: 16_000_000, decode: { timeoutMs: 1 } }),
    );
    expect(error).toMatchObject({ status: 415, code: "unsupported_media_type:image_decode", retryable: true });
    expect(error.message).toBe("The image cannot be prepared: decoding it took longer than 0.001 s and was stopped.");
  });
});
