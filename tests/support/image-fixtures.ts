import { deflateSync } from "node:zlib";
import { createCanvas } from "@napi-rs/canvas";

/**
 * Image files built byte by byte for tests: real small images a decoder can read, and crafted ones
 * whose frames lie about their size (the 34-byte GIF that once aborted the server, APNG, WebP ANMF
 * and JPEG SOF variants). Nothing here decodes anything.
 */

export interface Frame {
  left?: number;
  top?: number;
  width: number;
  height: number;
}

const u16le = (value: number) => Buffer.from([value & 0xff, (value >> 8) & 0xff]);
const u24le = (value: number) => Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff]);
const u32le = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};
const u32be = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};
const u16be = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);

// ---------------------------------------------------------------------------------------------- GIF

/**
 * LZW data for `pixels` pixels of palette index `index`, minimum code size 2: a clear code before
 * every pixel keeps the code size at 3 bits and the dictionary empty, which every decoder accepts.
 */
function gifPixels(pixels: number, index: number): Buffer {
  const data = Buffer.alloc(Math.ceil(((pixels * 2 + 1) * 3) / 8));
  let position = 0;
  const code = (value: number) => {
    for (let bit = 0; bit < 3; bit++, position++) {
      if ((value >> bit) & 1) data[position >> 3] = (data[position >> 3] as number) | (1 << (position & 7));
    }
  };
  for (let pixel = 0; pixel < pixels; pixel++) {
    code(4); // clear
    code(index);
  }
  code(5); // end of information
  const blocks: Buffer[] = [Buffer.from([2])];
  for (let offset = 0; offset < data.length; offset += 255) {
    const block = data.subarray(offset, offset + 255);
    blocks.push(Buffer.from([block.length]), block);
  }
  blocks.push(Buffer.from([0]));
  return Buffer.concat(blocks);
}

/**
 * A GIF89a with a 4-colour global palette (white, red, green, blue); every frame is filled with
 * `colorIndex`.
 */
export function makeGif({
  screen,
  frames,
  colorIndex = 1,
  trailer = true,
}: {
  screen: { width: number; height: number };
  frames: Frame[];
  colorIndex?: number;
  trailer?: boolean;
}): Buffer {
  const parts: Buffer[] = [
    Buffer.from("GIF89a", "latin1"),
    u16le(screen.width),
    u16le(screen.height),
    Buffer.from([0x81, 0, 0]),
    Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0xff, 0, 0, 0, 0xff]),
  ];
  if (frames.length > 1) {
    // NETSCAPE2.0 looping extension, as animated GIFs have: an extension the reader must skip.
    parts.push(Buffer.from([0x21, 0xff, 11]), Buffer.from("NETSCAPE2.0", "latin1"), Buffer.from([3, 1, 0, 0, 0]));
  }
  for (const frame of frames) {
    parts.push(Buffer.from([0x21, 0xf9, 4, 0, 10, 0, 0, 0])); // graphic control extension
    parts.push(Buffer.from([0x2c]), u16le(frame.left ?? 0), u16le(frame.top ?? 0));
    parts.push(u16le(frame.width), u16le(frame.height), Buffer.from([0]));
    parts.push(gifPixels(frame.width * frame.height, colorIndex));
  }
  if (trailer) parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

/**
 * The image of the bug report, 34 bytes: a 1×1 logical screen with a 2-entry palette, and one
 * image descriptor of 30000×30000 whose LZW data holds a single pixel. A decoder that trusts the
 * descriptor allocates 3.6 GB, and Skia aborts the process when it cannot.
 */
export function makeGifBomb(): Buffer {
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    Buffer.from([1, 0, 1, 0, 0x80, 0, 0]),
    Buffer.from([0, 0, 0, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c, 0, 0, 0, 0]),
    u16le(30000),
    u16le(30000),
    Buffer.from([0, 2, 1, 0x04, 0, 0x3b]), // LZW: clear, index 0 (no end code, as decoders allow)
  ]);
}

// ---------------------------------------------------------------------------------------------- PNG

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  return Buffer.concat([u32be(data.length), typed, u32be(crc32(typed))]);
}

/** Zlib data for `width`×`height` RGBA pixels, all one colour. */
function pngPixels(width: number, height: number): Buffer {
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 4, 0x80)]);
  return deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
}

function fcTL(sequence: number, frame: Frame): Buffer {
  return pngChunk(
    "fcTL",
    Buffer.concat([
      u32be(sequence),
      u32be(frame.width),
      u32be(frame.height),
      u32be(frame.left ?? 0),
      u32be(frame.top ?? 0),
      Buffer.from([0, 1, 0, 10, 0, 0]),
    ]),
  );
}

/**
 * A PNG (or, with `animation`, an APNG whose first frame is the IHDR image). Pixel data is real for
 * the IHDR image; later frames carry the pixels of a 1×1 frame whatever size they declare.
 */
export function makePng({
  width,
  height,
  animation,
  announcedFrames,
  end = true,
}: {
  width: number;
  height: number;
  animation?: Frame[];
  announcedFrames?: number;
  end?: boolean;
}): Buffer {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 6, 0, 0, 0])]);
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk("IHDR", ihdr)];
  let sequence = 0;
  if (animation) {
    const frames = announcedFrames ?? animation.length + 1;
    parts.push(pngChunk("acTL", Buffer.concat([u32be(frames), u32be(0)])));
    parts.push(fcTL(sequence++, { width, height }));
  }
  parts.push(pngChunk("IDAT", pngPixels(width, height)));
  for (const frame of animation ?? []) {
    parts.push(fcTL(sequence++, frame));
    parts.push(pngChunk("fdAT", Buffer.concat([u32be(sequence++), pngPixels(1, 1)])));
  }
  if (end) parts.push(pngChunk("IEND", Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** `png` with the CRC of its first `type` chunk flipped (a damaged IHDR segfaults @napi-rs/canvas 0.1.100). */
export function withDamagedCrc(png: Buffer, type: string): Buffer {
  const copy = Buffer.from(png);
  const at = copy.indexOf(type, 8, "latin1");
  if (at < 0) throw new Error(`no ${type} chunk`);
  const crcAt = at + 4 + copy.readUInt32BE(at - 4);
  copy[crcAt] = (copy[crcAt] as number) ^ 0xff;
  return copy;
}

// --------------------------------------------------------------------------------------------- WebP

function riffChunk(type: string, data: Buffer): Buffer {
  const pad = data.length % 2 ? Buffer.from([0]) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(type, "latin1"), u32le(data.length), data, pad]);
}

/** A VP8L header declaring `width`×`height` (the bitstream after it is not valid image data). */
function vp8lHeader(width: number, height: number): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  return Buffer.concat([Buffer.from([0x2f]), u32le(bits >>> 0), Buffer.alloc(8)]);
}

/** An animated WebP: a VP8X canvas and one ANMF chunk per frame, each holding a VP8L header. */
export function makeAnimatedWebp({
  canvas,
  frames,
  bitstream,
}: {
  canvas: { width: number; height: number };
  frames: Frame[];
  /** The size the frames' VP8L headers declare (default: each frame's own). */
  bitstream?: { width: number; height: number };
}): Buffer {
  const vp8x = Buffer.concat([Buffer.from([0x02, 0, 0, 0]), u24le(canvas.width - 1), u24le(canvas.height - 1)]);
  const chunks = [riffChunk("VP8X", vp8x), riffChunk("ANIM", Buffer.alloc(6))];
  for (const frame of frames) {
    const header = Buffer.concat([
      u24le((frame.left ?? 0) / 2),
      u24le((frame.top ?? 0) / 2),
      u24le(frame.width - 1),
      u24le(frame.height - 1),
      u24le(100),
      Buffer.from([0]),
    ]);
    const image = riffChunk("VP8L", vp8lHeader(bitstream?.width ?? frame.width, bitstream?.height ?? frame.height));
    chunks.push(riffChunk("ANMF", Buffer.concat([header, image])));
  }
  const body = Buffer.concat([Buffer.from("WEBP", "latin1"), ...chunks]);
  return Buffer.concat([Buffer.from("RIFF", "latin1"), u32le(body.length), body]);
}

// --------------------------------------------------------------------------------------------- JPEG

/** A start-of-frame (baseline) segment declaring `width`×`height`, three components. */
export function jpegSof(width: number, height: number): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xc0]),
    u16be(17),
    Buffer.from([8]),
    u16be(height),
    u16be(width),
    Buffer.from([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
  ]);
}

/** `jpeg` with `segment` inserted just before its end-of-image marker. */
export function insertBeforeEoi(jpeg: Buffer, segment: Buffer): Buffer {
  const eoi = jpeg.length - 2;
  if (jpeg[eoi] !== 0xff || jpeg[eoi + 1] !== 0xd9) throw new Error("the JPEG does not end with EOI");
  return Buffer.concat([jpeg.subarray(0, eoi), segment, jpeg.subarray(eoi)]);
}

/** `jpeg` with the size in its first start-of-frame segment replaced. */
export function withFirstSofSize(jpeg: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(jpeg);
  for (let offset = 2; offset + 9 < copy.length; ) {
    const marker = copy[offset + 1] as number;
    if (marker >= 0xc0 && marker <= 0xc3) {
      copy.writeUInt16BE(height, offset + 5);
      copy.writeUInt16BE(width, offset + 7);
      return copy;
    }
    offset += 2 + copy.readUInt16BE(offset + 2);
  }
  throw new Error("no SOF segment before the first scan");
}

/** The simple-format WebP (one VP8 or VP8L chunk, no VP8X) inside an extended one, as canvas encoders write. */
export function toSimpleWebp(extended: Buffer): Buffer {
  for (let offset = 12; offset + 8 <= extended.length; ) {
    const type = extended.subarray(offset, offset + 4).toString("latin1");
    const size = extended.readUInt32LE(offset + 4);
    if (type === "VP8 " || type === "VP8L") {
      const body = Buffer.concat([
        Buffer.from("WEBP", "latin1"),
        riffChunk(type, extended.subarray(offset + 8, offset + 8 + size)),
      ]);
      return Buffer.concat([Buffer.from("RIFF", "latin1"), u32le(body.length), body]);
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error("no VP8 or VP8L chunk");
}

/** A real image of one colour, encoded by the canvas library (this encodes; it never decodes). */
export function encodedImage(format: "png" | "jpeg" | "webp", width: number, height: number): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext("2d");
  context.fillStyle = "#3366ff";
  context.fillRect(0, 0, width, height);
  // biome-ignore lint/suspicious/noExplicitAny: encodeSync's overloads take one format at a time
  return Buffer.from(canvas.encodeSync(format as any, 90));
}

/** A crafted image, the refusal it must get (status, code) and a phrase its message names. */
export interface CraftedImage {
  name: string;
  make: () => Buffer;
  status: 413 | 415;
  code: string;
  says: string;
}

/** Every crafted image the upload check and the vision preparation must refuse before decoding. */
export const CRAFTED_IMAGES: CraftedImage[] = [
  {
    name: "the 34-byte GIF with a 30000×30000 frame",
    make: makeGifBomb,
    status: 413,
    code: "payload_too_large:image_pixels",
    says: "30000×30000",
  },
  {
    name: "a GIF with 2000 frames",
    make: () =>
      makeGif({
        screen: { width: 1, height: 1 },
        frames: Array.from({ length: 2000 }, () => ({ width: 1, height: 1 })),
      }),
    status: 413,
    code: "payload_too_large:image_frames",
    says: "2,000 frames; the limit is 1,000",
  },
  {
    name: "an APNG whose second frame is huge",
    make: () => makePng({ width: 1, height: 1, animation: [{ width: 20000, height: 20000 }] }),
    status: 413,
    code: "payload_too_large:image_pixels",
    says: "20000×20000",
  },
  {
    name: "a WebP with an ANMF frame over the limit",
    make: () => makeAnimatedWebp({ canvas: { width: 1, height: 1 }, frames: [{ width: 16000, height: 16000 }] }),
    status: 413,
    code: "payload_too_large:image_pixels",
    says: "16000×16000",
  },
  {
    name: "a JPEG with a second SOF over the limit",
    make: () => insertBeforeEoi(encodedImage("jpeg", 64, 48), jpegSof(65535, 65535)),
    status: 413,
    code: "payload_too_large:image_pixels",
    says: "65535×65535",
  },
  {
    name: "a truncated PNG",
    make: () => encodedImage("png", 300, 200).subarray(0, 150),
    status: 415,
    code: "unsupported_media_type:image",
    says: "truncated",
  },
  {
    name: "a PNG whose IHDR CRC is damaged (it segfaults the decoder)",
    make: () => withDamagedCrc(encodedImage("png", 30, 20), "IHDR"),
    status: 415,
    code: "unsupported_media_type:image",
    says: "CRC mismatch",
  },
  {
    name: "a GIF without its trailer",
    make: () => makeGifBomb().subarray(0, 33),
    status: 415,
    code: "unsupported_media_type:image",
    says: "truncated",
  },
];
