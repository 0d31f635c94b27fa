import { crc32 } from "node:zlib";
import { type FrameScan, FrameTally, ImageStructureError, latin1, need } from "./structure";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The chunks whose sizes and counts are read here; their CRC must match for the numbers to be trusted. */
const HEADER_CHUNKS = new Set(["IHDR", "acTL", "fcTL"]);

/**
 * PNG and APNG: IHDR gives the canvas; an APNG adds `acTL` (announced frame count) and one `fcTL`
 * per frame with its own size and offset. Every chunk is walked up to IEND. A header chunk with a
 * wrong CRC is refused: besides making its numbers doubtful, a damaged IHDR crashes the decoder.
 */
export function scanPng(bytes: Buffer): FrameScan {
  if (!bytes.subarray(0, 8).equals(SIGNATURE)) throw new ImageStructureError("it is not a PNG file");
  const tally = new FrameTally("IHDR header");
  let offset = 8;
  let index = 0;
  for (;;) {
    need(bytes, offset, 8, "a chunk header");
    const length = bytes.readUInt32BE(offset);
    const type = latin1(bytes, offset + 4, 4);
    if (length > 0x7fffffff) throw new ImageStructureError(`chunk ${JSON.stringify(type)} has an invalid length`);
    need(bytes, offset + 8, length + 4, `chunk ${JSON.stringify(type)}`);
    const data = offset + 8;
    if (
      HEADER_CHUNKS.has(type) &&
      crc32(bytes.subarray(offset + 4, data + length)) !== bytes.readUInt32BE(data + length)
    ) {
      throw new ImageStructureError(`its ${type} chunk is damaged (CRC mismatch)`);
    }
    if (index === 0 && type !== "IHDR") throw new ImageStructureError("it does not start with an IHDR header");
    if (type === "IHDR") {
      if (index !== 0 || length !== 13) throw new ImageStructureError("its IHDR header is malformed");
      tally.declare(bytes.readUInt32BE(data), bytes.readUInt32BE(data + 4), "the image");
    } else if (type === "acTL") {
      if (length !== 8) throw new ImageStructureError("its acTL chunk is malformed");
      tally.announce(bytes.readUInt32BE(data));
    } else if (type === "fcTL") {
      if (length !== 26) throw new ImageStructureError("an fcTL chunk is malformed");
      tally.frame({
        width: bytes.readUInt32BE(data + 4),
        height: bytes.readUInt32BE(data + 8),
        left: bytes.readUInt32BE(data + 12),
        top: bytes.readUInt32BE(data + 16),
      });
    } else if (type === "IEND") {
      break;
    }
    offset = data + length + 4;
    index += 1;
  }
  // A still PNG (or an acTL without fcTL, which decoders show as a still image) is its IHDR image.
  const ihdr = { left: 0, top: 0, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (tally.frames === 0) tally.frame(ihdr, "the image");
  return tally.result();
}
