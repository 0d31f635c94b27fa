import "server-only";
import { createCanvas, loadImage } from "@napi-rs/canvas";

/**
 * Prepares an image attachment for a vision model (SPEC §11 "Images"; not a tool): the longer side
 * is brought down to `maxSide`, re-encoded as JPEG (or WebP) at `quality`. Images above
 * `maxPixels` are not decoded at all (a decompression bomb costs nothing) and pass through as they are.
 */
export async function resizeForVision(
  bytes: Buffer,
  {
    maxSide = 1024,
    quality = 85,
    maxPixels,
    format = "image/jpeg",
  }: {
    maxSide?: number;
    quality?: number;
    maxPixels: number;
    format?: "image/jpeg" | "image/webp";
  },
): Promise<{ bytes: Buffer; width: number; height: number; resized: boolean }> {
  const size = imageSize(bytes);
  if (!size || size.width * size.height > maxPixels)
    return { bytes, width: size?.width ?? 0, height: size?.height ?? 0, resized: false };
  const image = await loadImage(bytes);
  const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
  if (scale === 1 && /^\xff\xd8/.test(bytes.subarray(0, 2).toString("latin1"))) {
    return { bytes, width: image.width, height: image.height, resized: false };
  }
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff"; // JPEG has no alpha: transparent areas become white, not black
  context.fillRect(0, 0, width, height);
  context.drawImage(image, 0, 0, width, height);
  const encoded = format === "image/webp" ? await canvas.encode("webp", quality) : await canvas.encode("jpeg", quality);
  return { bytes: Buffer.from(encoded), width, height, resized: true };
}

/** Width and height from the PNG, GIF, WebP or JPEG header, without decoding the image. */
export function imageSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.subarray(1, 4).toString("latin1") === "PNG") {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.subarray(0, 3).toString("latin1") === "GIF") {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 30 && bytes.subarray(8, 12).toString("latin1") === "WEBP") {
    const chunk = bytes.subarray(12, 16).toString("latin1");
    if (chunk === "VP8X") return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
    if (chunk === "VP8L") {
      const bits = bytes.readUInt32LE(21);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
    if (chunk === "VP8 ") return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let offset = 2;
    while (offset + 9 < bytes.length) {
      if (bytes[offset] !== 0xff) return null;
      const marker = bytes[offset + 1] as number;
      const length = bytes.readUInt16BE(offset + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return { width: bytes.readUInt16BE(offset + 7), height: bytes.readUInt16BE(offset + 5) };
      }
      offset += 2 + length;
    }
  }
  return null;
}
