// The image decoder's own process, started by image-decode.ts for one image and gone after it.
// Skia aborts its whole process when an allocation fails, so untrusted pixels are decoded here,
// under a memory cap and a timeout, never inside the server. Plain JavaScript, loaded by path:
// no bundler touches it, and it runs the same under vitest and under `next start`.
import { createCanvas, loadImage } from "@napi-rs/canvas";

/** Brings the longer side down to `maxSide` and re-encodes as JPEG (white behind transparency) or WebP. */
async function prepare({ bytes, maxSide, quality, format }) {
  try {
    const image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
    const width = Math.max(1, Math.round(image.width * scale));
    const height = Math.max(1, Math.round(image.height * scale));
    const canvas = createCanvas(width, height);
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff"; // JPEG has no alpha: transparent areas become white, not black
    context.fillRect(0, 0, width, height);
    context.drawImage(image, 0, 0, width, height);
    const encoded = await canvas.encode(format === "image/webp" ? "webp" : "jpeg", quality);
    return { ok: true, bytes: encoded, width, height };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

// The server went away (or gave up on this image): nothing left to do.
process.on("disconnect", () => process.exit(0));
process.once("message", async (job) => {
  const answer = await prepare(job);
  process.send(answer, () => process.exit(0));
});
