import { createCanvas } from "@napi-rs/canvas";
import { describe, expect, it } from "vitest";
import { imageSize, resizeForVision } from "./image-resize";

async function png(width: number, height: number): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#3366ff";
  context.fillRect(0, 0, width, height);
  return Buffer.from(await canvas.encode("png"));
}

describe("image preparation for vision models (SPEC §11 Images)", () => {
  it("reads the size from the header without decoding", async () => {
    expect(imageSize(await png(300, 200))).toEqual({ width: 300, height: 200 });
    const canvas = createCanvas(64, 48);
    expect(imageSize(Buffer.from(await canvas.encode("jpeg", 80)))).toEqual({ width: 64, height: 48 });
    expect(imageSize(Buffer.from("not an image"))).toBeNull();
  });

  it("brings the longer side down to 1024 and re-encodes as JPEG", async () => {
    const result = await resizeForVision(await png(3000, 1500), { maxPixels: 16_000_000 });
    expect(result).toMatchObject({ width: 1024, height: 512, resized: true });
    expect(result.bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(imageSize(result.bytes)).toEqual({ width: 1024, height: 512 });
  });

  it("honours the quality setting and WebP", async () => {
    const source = await png(800, 800);
    const low = await resizeForVision(source, { maxPixels: 16_000_000, maxSide: 400, quality: 20 });
    const webp = await resizeForVision(source, { maxPixels: 16_000_000, maxSide: 400, format: "image/webp" });
    expect(low.width).toBe(400);
    expect(webp.bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
  });

  it("passes an image above MAX_IMAGE_PIXELS through untouched, without decoding it", async () => {
    const source = await png(2000, 2000);
    const result = await resizeForVision(source, { maxPixels: 1_000_000 });
    expect(result.resized).toBe(false);
    expect(result.bytes).toBe(source);
  });
});
