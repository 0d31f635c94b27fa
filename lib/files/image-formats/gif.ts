import { type FrameScan, FrameTally, ImageStructureError, latin1, need } from "./structure";

const EXTENSION = 0x21;
const IMAGE_DESCRIPTOR = 0x2c;
const TRAILER = 0x3b;

/**
 * GIF: the logical screen is only a hint — every image descriptor carries its own size and
 * offset, and decoders allocate for those. The whole block structure is walked to the trailer:
 * extensions and LZW data are skipped sub-block by sub-block, each descriptor is a frame.
 */
export function scanGif(bytes: Buffer): FrameScan {
  need(bytes, 0, 13, "the header");
  if (!/^GIF8[79]a$/.test(latin1(bytes, 0, 6))) throw new ImageStructureError("it is not a GIF file");
  const tally = new FrameTally("logical screen");
  tally.declare(bytes.readUInt16LE(6), bytes.readUInt16LE(8), "the logical screen");
  let offset = 13 + colorTableSize(bytes[10] as number);
  for (;;) {
    need(bytes, offset, 1, "the block list");
    const introducer = bytes[offset] as number;
    if (introducer === TRAILER) break;
    if (introducer === EXTENSION) {
      need(bytes, offset, 2, "an extension");
      offset = skipSubBlocks(bytes, offset + 2, "an extension");
    } else if (introducer === IMAGE_DESCRIPTOR) {
      need(bytes, offset, 10, "an image descriptor");
      tally.frame({
        left: bytes.readUInt16LE(offset + 1),
        top: bytes.readUInt16LE(offset + 3),
        width: bytes.readUInt16LE(offset + 5),
        height: bytes.readUInt16LE(offset + 7),
      });
      offset += 10 + colorTableSize(bytes[offset + 9] as number);
      need(bytes, offset, 1, "image data");
      const minCodeSize = bytes[offset] as number;
      if (minCodeSize < 1 || minCodeSize > 11) throw new ImageStructureError("a frame's LZW code size is invalid");
      offset = skipSubBlocks(bytes, offset + 1, "image data");
    } else {
      throw new ImageStructureError(`it has an unknown block (0x${introducer.toString(16)})`);
    }
  }
  return tally.result();
}

/** A global or local color table follows its descriptor when the packed byte's top bit is set. */
function colorTableSize(packed: number): number {
  return packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0;
}

/** Sub-blocks: a length byte, that many bytes, until a zero length. Returns the offset after them. */
function skipSubBlocks(bytes: Buffer, start: number, what: string): number {
  let offset = start;
  for (;;) {
    need(bytes, offset, 1, what);
    const size = bytes[offset] as number;
    offset += 1;
    if (size === 0) return offset;
    need(bytes, offset, size, what);
    offset += size;
  }
}
