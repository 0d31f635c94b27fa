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
  toSimpleWebp,
  withDamagedCrc,
  withFirstSofSize,
} from "@/tests/support/image-fixtures";
import { checkImage, inspectImage } from "./image-inspect";

const LIMITS = { maxPixels: 16_000_000, maxFrames: 1000 };

function encoded(format: "png" | "jpeg" | "webp", width = 64, height = 48, quality = 80): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#3366ff";
  context.fillRect(0, 0, width / 2, height);
  // biome-ignore lint/suspicious/noExplicitAny: encodeSync's overloads take one format at a time
  return Buffer.from(canvas.encodeSync(format as any, quality));
}

function refusal(bytes: Buffer, limits = LIMITS): AppError {
  try {
    checkImage(bytes, limits);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the image was accepted");
}

const realImages = (): [string, Buffer][] => [
  ["PNG", encoded("png")],
  ["JPEG", encoded("jpeg")],
  ["WebP (extended)", encoded("webp")],
  ["WebP (simple, lossy)", toSimpleWebp(encoded("webp"))],
  ["WebP (simple, lossless)", toSimpleWebp(encoded("webp", 64, 48, 100))],
  ["GIF", makeGif({ screen: { width: 64, height: 48 }, frames: [{ width: 64, height: 48 }] })],
];

describe("image inspection reads every frame without decoding", () => {
  it.each(realImages())("reads the size and frame count of a real %s", (_, bytes) => {
    expect(inspectImage(bytes)).toMatchObject({
      ok: true,
      declared: { width: 64, height: 48 },
      extent: { width: 64, height: 48 },
      frames: 1,
    });
  });

  it("reads a GIF's image descriptors, not its logical screen: the 34-byte GIF is 30000×30000", () => {
    const bomb = makeGifBomb();
    expect(bomb.length).toBe(34);
    expect(inspectImage(bomb)).toMatchObject({
      ok: true,
      declared: { width: 1, height: 1 },
      largestFrame: { width: 30000, height: 30000 },
      extent: { width: 30000, height: 30000 },
    });
    const error = refusal(bomb);
    expect(error.status).toBe(413);
    expect(error.code).toBe("payload_too_large:image_pixels");
    expect(error.message).toContain("30000×30000");
    expect(error.message).toContain("16,000,000 pixels");
  });

  it("counts a frame's offset: a frame far outside the screen needs a canvas that reaches it", () => {
    const gif = makeGif({ screen: { width: 10, height: 10 }, frames: [{ left: 5000, top: 0, width: 10, height: 10 }] });
    expect(inspectImage(gif)).toMatchObject({ ok: true, extent: { width: 5010, height: 10 } });
    expect(refusal(gif, { maxPixels: 10_000, maxFrames: 10 }).code).toBe("payload_too_large:image_pixels");
  });

  it("counts every GIF frame and refuses more than MAX_IMAGE_FRAMES", () => {
    const frames = Array.from({ length: 2000 }, () => ({ width: 1, height: 1 }));
    const gif = makeGif({ screen: { width: 1, height: 1 }, frames });
    expect(inspectImage(gif)).toMatchObject({ ok: true, frames: 2000 });
    const error = refusal(gif);
    expect(error.status).toBe(413);
    expect(error.code).toBe("payload_too_large:image_frames");
    expect(error.message).toBe("The image has 2,000 frames; the limit is 1,000 frames.");
    expect(checkImage(gif, { ...LIMITS, maxFrames: 2000 }).frames).toBe(2000);
  });

  it("reads APNG frames: a second frame over MAX_IMAGE_PIXELS is refused though IHDR is small", () => {
    const apng = makePng({ width: 1, height: 1, animation: [{ width: 20000, height: 20000 }] });
    expect(inspectImage(apng)).toMatchObject({ ok: true, declared: { width: 1, height: 1 }, frames: 2 });
    const error = refusal(apng);
    expect(error.code).toBe("payload_too_large:image_pixels");
    expect(error.message).toContain("declares 1×1 pixels, but its frames need 20000×20000");
  });

  it("counts the frames an APNG announces in acTL, not only those it holds", () => {
    const apng = makePng({ width: 2, height: 2, animation: [{ width: 1, height: 1 }], announcedFrames: 5000 });
    expect(refusal(apng).code).toBe("payload_too_large:image_frames");
  });

  it("reads WebP ANMF frames and the bitstream inside each", () => {
    const bigFrame = makeAnimatedWebp({ canvas: { width: 1, height: 1 }, frames: [{ width: 16000, height: 16000 }] });
    expect(refusal(bigFrame).code).toBe("payload_too_large:image_pixels");
    const bigBitstream = makeAnimatedWebp({
      canvas: { width: 4, height: 4 },
      frames: [{ width: 4, height: 4 }],
      bitstream: { width: 16384, height: 16384 },
    });
    expect(refusal(bigBitstream).code).toBe("payload_too_large:image_pixels");
    const small = makeAnimatedWebp({
      canvas: { width: 8, height: 8 },
      frames: [
        { width: 8, height: 8 },
        { width: 4, height: 4, left: 4, top: 4 },
      ],
    });
    expect(inspectImage(small)).toMatchObject({ ok: true, frames: 2, extent: { width: 8, height: 8 } });
  });

  it("reads every JPEG start-of-frame: a second SOF over MAX_IMAGE_PIXELS is refused", () => {
    const jpeg = insertBeforeEoi(encoded("jpeg"), jpegSof(65535, 65535));
    expect(inspectImage(jpeg)).toMatchObject({ ok: true, declared: { width: 64, height: 48 }, frames: 2 });
    expect(refusal(jpeg).code).toBe("payload_too_large:image_pixels");
  });

  it("refuses zero dimensions, including a JPEG whose height is left to a DNL marker", () => {
    const zeroHeight = withFirstSofSize(encoded("jpeg"), 64, 0);
    expect(refusal(zeroHeight)).toMatchObject({ status: 415, code: "unsupported_media_type:image" });
    expect(refusal(zeroHeight).message).toBe("The image cannot be read: the image is 64×0 pixels.");
    expect(refusal(makePng({ width: 0, height: 5 })).status).toBe(415);
    expect(refusal(makeGif({ screen: { width: 4, height: 4 }, frames: [{ width: 0, height: 4 }] })).status).toBe(415);
  });

  it("refuses a PNG whose IHDR, acTL or fcTL CRC does not match: its sizes cannot be trusted", () => {
    const apng = makePng({ width: 2, height: 2, animation: [{ width: 1, height: 1 }] });
    for (const type of ["IHDR", "acTL", "fcTL"]) {
      const error = refusal(withDamagedCrc(apng, type));
      expect(error.status).toBe(415);
      expect(error.message).toBe(`The image cannot be read: its ${type} chunk is damaged (CRC mismatch).`);
    }
    expect(inspectImage(withDamagedCrc(apng, "IDAT")).ok).toBe(true); // pixel data is the decoder's to check
  });

  it("refuses a file cut anywhere before its end as unreadable", () => {
    for (const [name, bytes] of realImages()) {
      for (let length = 1; length < bytes.length; length += Math.max(1, Math.floor(bytes.length / 97))) {
        const cut = inspectImage(bytes.subarray(0, length));
        expect(cut.ok, `${name} cut at ${length} of ${bytes.length}`).toBe(false);
      }
      expect(inspectImage(bytes.subarray(0, bytes.length - 1)).ok, `${name} without its last byte`).toBe(false);
    }
    const error = refusal(makePng({ width: 4, height: 4, end: false }));
    expect(error.status).toBe(415);
    expect(error.message).toContain("truncated");
    expect(
      refusal(makeGif({ screen: { width: 1, height: 1 }, frames: [{ width: 1, height: 1 }], trailer: false })).status,
    ).toBe(415);
  });

  it("never throws on damaged files: every reader checks its bounds", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const originals = [
      ...realImages().map(([, bytes]) => bytes),
      makeGifBomb(),
      makeAnimatedWebp({ canvas: { width: 8, height: 8 }, frames: [{ width: 8, height: 8 }] }),
    ];
    for (const original of originals) {
      for (let round = 0; round < 300; round++) {
        const damaged = Buffer.from(original);
        for (let flip = 0; flip < 4; flip++) {
          damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256);
        }
        expect(() => inspectImage(damaged)).not.toThrow();
      }
    }
  });

  it("refuses what is not a PNG, JPEG, GIF or WebP", () => {
    expect(inspectImage(Buffer.from("not an image"))).toMatchObject({ ok: false, format: null });
  });
});
