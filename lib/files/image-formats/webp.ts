import { type FrameScan, FrameTally, ImageStructureError, latin1, need } from "./structure";

interface Chunk {
  type: string;
  data: number;
  size: number;
}

/**
 * WebP: a RIFF container. A simple file is one VP8 (lossy) or VP8L (lossless) bitstream; an
 * extended one (VP8X) declares a canvas and may hold animation frames (ANMF), each with its own
 * size, offset and bitstream. Every size a decoder could use is reported: the canvas, each ANMF
 * frame and the bitstream inside it.
 */
export function scanWebp(bytes: Buffer): FrameScan {
  need(bytes, 0, 12, "the RIFF header");
  if (latin1(bytes, 0, 4) !== "RIFF" || latin1(bytes, 8, 4) !== "WEBP") {
    throw new ImageStructureError("it is not a WebP file");
  }
  const end = 8 + bytes.readUInt32LE(4);
  need(bytes, 0, end, "the RIFF container");
  const chunks = readChunks(bytes, 12, end);
  const first = chunks[0];
  if (!first) throw new ImageStructureError("it holds no image");
  const tally = new FrameTally("canvas");
  if (first.type === "VP8 " || first.type === "VP8L") {
    const size = bitstreamSize(bytes, first);
    tally.declare(size.width, size.height, "the image");
    tally.frame({ left: 0, top: 0, ...size }, "the image");
    return tally.result();
  }
  if (first.type !== "VP8X")
    throw new ImageStructureError(`it starts with an unknown chunk ${JSON.stringify(first.type)}`);
  if (first.size < 10) throw new ImageStructureError("its VP8X header is malformed");
  tally.declare(1 + bytes.readUIntLE(first.data + 4, 3), 1 + bytes.readUIntLE(first.data + 7, 3), "the canvas");
  for (const chunk of chunks.slice(1)) {
    if (chunk.type === "ANMF") tally.frame(animationFrame(bytes, chunk));
    else if (chunk.type === "VP8 " || chunk.type === "VP8L") {
      tally.frame({ left: 0, top: 0, ...bitstreamSize(bytes, chunk) }, "the image");
    }
  }
  return tally.result();
}

/** Chunks between `start` and `end`: FourCC, little-endian size, data padded to an even length. */
function readChunks(bytes: Buffer, start: number, end: number): Chunk[] {
  const chunks: Chunk[] = [];
  let offset = start;
  while (offset < end) {
    if (offset + 8 > end) throw new ImageStructureError("the file ends inside a chunk header (truncated)");
    const type = latin1(bytes, offset, 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (offset + 8 + size > end) {
      throw new ImageStructureError(`the file ends inside chunk ${JSON.stringify(type)} (truncated)`);
    }
    chunks.push({ type, data: offset + 8, size });
    offset += 8 + size + (size % 2);
  }
  return chunks;
}

/** An ANMF frame: its offset and size, grown to its bitstream's size should that be larger. */
function animationFrame(bytes: Buffer, chunk: Chunk) {
  if (chunk.size < 16) throw new ImageStructureError("an ANMF frame is malformed");
  const frame = {
    left: 2 * bytes.readUIntLE(chunk.data, 3),
    top: 2 * bytes.readUIntLE(chunk.data + 3, 3),
    width: 1 + bytes.readUIntLE(chunk.data + 6, 3),
    height: 1 + bytes.readUIntLE(chunk.data + 9, 3),
  };
  const inner = readChunks(bytes, chunk.data + 16, chunk.data + chunk.size);
  const image = inner.find((entry) => entry.type === "VP8 " || entry.type === "VP8L");
  if (!image) throw new ImageStructureError("an ANMF frame holds no image");
  const size = bitstreamSize(bytes, image);
  return { ...frame, width: Math.max(frame.width, size.width), height: Math.max(frame.height, size.height) };
}

/** The size written in a VP8 key frame header or a VP8L header. */
function bitstreamSize(bytes: Buffer, chunk: Chunk): { width: number; height: number } {
  const at = chunk.data;
  if (chunk.type === "VP8L") {
    if (chunk.size < 5 || bytes[at] !== 0x2f) throw new ImageStructureError("its VP8L header is malformed");
    const bits = bytes.readUInt32LE(at + 1);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  const keyFrame = chunk.size >= 10 && ((bytes[at] as number) & 1) === 0;
  if (!keyFrame || bytes[at + 3] !== 0x9d || bytes[at + 4] !== 0x01 || bytes[at + 5] !== 0x2a) {
    throw new ImageStructureError("its VP8 header is malformed");
  }
  return { width: bytes.readUInt16LE(at + 6) & 0x3fff, height: bytes.readUInt16LE(at + 8) & 0x3fff };
}
