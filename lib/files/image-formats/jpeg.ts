import { type FrameScan, FrameTally, ImageStructureError, need } from "./structure";

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const TEM = 0x01;

/** SOF0..SOF15 carry a frame size, except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
const isRestart = (marker: number) => marker >= 0xd0 && marker <= 0xd7;

/**
 * JPEG: markers are walked from SOI to EOI, through the entropy-coded data after each scan, so
 * every start-of-frame (a hierarchical or crafted file can hold several) is seen. A frame whose
 * height is 0 (defined later by a DNL marker) is refused: its size is unknown before decoding.
 */
export function scanJpeg(bytes: Buffer): FrameScan {
  if (bytes[0] !== 0xff || bytes[1] !== SOI) throw new ImageStructureError("it is not a JPEG file");
  const tally = new FrameTally("frame header (SOF)");
  let offset = 2;
  for (;;) {
    need(bytes, offset, 2, "a marker");
    if (bytes[offset] !== 0xff) throw new ImageStructureError(`it has data where a marker belongs (offset ${offset})`);
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset += 1; // fill byte before a marker
      continue;
    }
    if (marker === EOI) break;
    if (marker === SOI) throw new ImageStructureError("it has a second start-of-image marker");
    if (isRestart(marker) || marker === TEM) {
      offset += 2;
      continue;
    }
    need(bytes, offset + 2, 2, "a marker segment");
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2) throw new ImageStructureError("a marker segment has an invalid length");
    need(bytes, offset + 2, length, "a marker segment");
    if (isStartOfFrame(marker)) {
      if (length < 8) throw new ImageStructureError("a frame header (SOF) is malformed");
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      if (tally.frames === 0) tally.declare(width, height, "the image");
      tally.frame({ left: 0, top: 0, width, height });
    }
    offset += 2 + length;
    if (marker === SOS) {
      if (tally.frames === 0) throw new ImageStructureError("a scan comes before any frame header (SOF)");
      offset = endOfEntropyData(bytes, offset);
    }
  }
  return tally.result();
}

/** Entropy-coded data runs until a 0xFF that is neither stuffing (FF 00) nor a restart marker. */
function endOfEntropyData(bytes: Buffer, start: number): number {
  let offset = start;
  for (;;) {
    const next = bytes.indexOf(0xff, offset);
    if (next === -1 || next + 1 >= bytes.length)
      throw new ImageStructureError("the file ends inside a scan (truncated)");
    const following = bytes[next + 1] as number;
    if (following === 0x00 || following === 0xff || isRestart(following)) {
      offset = next + (following === 0xff ? 1 : 2);
      continue;
    }
    return next;
  }
}
