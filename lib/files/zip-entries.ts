import { promisify } from "node:util";
import { createInflateRaw, inflateRaw } from "node:zlib";

/**
 * Just enough of ZIP to tell a DOCX from another ZIP and to measure what it inflates to before any
 * converter opens it: the central directory's names, and each entry inflated under a byte budget.
 * ZIP64, encryption and methods other than stored and deflate are not read (no DOCX needs them).
 */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** What the directory claims; the real size is measured by `inflatedSize`. */
  size: number;
  localOffset: number;
}

/** A format bound far beyond any real DOCX (a few dozen entries), not a tunable limit. */
export const MAX_ENTRIES = 10_000;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

/** The central directory, or null when `bytes` is not a ZIP this reader reads (or has over `maxEntries` entries). */
export function zipEntries(bytes: Buffer, maxEntries: number): ZipEntry[] | null {
  if (bytes.length < EOCD_SIZE || bytes.readUInt32LE(0) !== LOCAL) return null;
  let end = -1;
  for (let at = bytes.length - EOCD_SIZE; at >= Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT); at--) {
    if (bytes.readUInt32LE(at) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) return null;
  const count = bytes.readUInt16LE(end + 10);
  const directorySize = bytes.readUInt32LE(end + 12);
  const directoryOffset = bytes.readUInt32LE(end + 16);
  if (count > maxEntries || directoryOffset + directorySize > end) return null;
  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== CENTRAL) return null;
    const flags = bytes.readUInt16LE(at + 8);
    const nameLength = bytes.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    if (next > end || flags & 1) return null;
    entries.push({
      name: bytes.subarray(at + 46, at + 46 + nameLength).toString("utf8"),
      method: bytes.readUInt16LE(at + 10),
      compressedSize: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      localOffset: bytes.readUInt32LE(at + 42),
    });
    at = next;
  }
  return entries;
}

/** A ZIP whose directory holds a Word document's main part and content types. */
export function isWordZip(entries: ZipEntry[] | null): entries is ZipEntry[] {
  const names = new Set(entries?.map((entry) => entry.name));
  return names.has("word/document.xml") && names.has("[Content_Types].xml");
}

/** A ZIP of no entries: only its end record (what a ZIP writer makes of nothing). */
export const isEmptyZip = (bytes: Buffer): boolean =>
  bytes.length >= EOCD_SIZE && bytes.readUInt32LE(0) === EOCD && bytes.readUInt16LE(10) === 0;

export const isDocx = (bytes: Buffer): boolean => isWordZip(zipEntries(bytes, MAX_ENTRIES));

const inflate = promisify(inflateRaw);

/** The most inflated bytes measuring an entry holds at once: the inflater's output chunk. */
export const MEASURE_CHUNK_BYTES = 64 * 1024;

/**
 * Every entry's real inflated size added up, stopping as soon as the total passes `maxBytes`
 * (then `null`). Each entry is inflated as a stream whose output is counted and dropped, chunk by
 * chunk: a bomb is refused holding one chunk, never what it inflates to. Inflating runs on libuv's
 * thread pool, so the server's thread never waits on it. Throws a plain Error for an entry that
 * cannot be read.
 */
export async function inflatedSize(bytes: Buffer, entries: ZipEntry[], maxBytes: number): Promise<number | null> {
  let total = 0;
  for (const entry of entries) {
    const left = maxBytes - total;
    if (entry.size > left) return null;
    const data = entryData(bytes, entry);
    const size = entry.method === 0 ? data.length : await countInflated(data, left);
    if (size === null || size > left) return null;
    total += size;
  }
  return total;
}

/** What `data` inflates to, counted without being kept; `null` once it passes `maxBytes` (inflation stops there). */
function countInflated(data: Buffer, maxBytes: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw({ chunkSize: MEASURE_CHUNK_BYTES });
    let total = 0;
    // Flowing: each chunk is counted as it comes out and is garbage the moment after.
    inflater.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        inflater.destroy();
        resolve(null);
      }
    });
    inflater.on("error", reject);
    inflater.on("end", () => resolve(total));
    inflater.end(data);
  });
}

/** An entry's stored (compressed) bytes, a view into the archive. */
function entryData(bytes: Buffer, entry: ZipEntry): Buffer {
  if (entry.method !== 0 && entry.method !== 8) {
    throw new Error(`unsupported compression method ${entry.method} in ${entry.name}`);
  }
  const at = entry.localOffset;
  if (at + 30 > bytes.length || bytes.readUInt32LE(at) !== LOCAL) throw new Error(`bad entry ${entry.name}`);
  const start = at + 30 + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (data.length !== entry.compressedSize) throw new Error(`truncated entry ${entry.name}`);
  return data;
}

/**
 * One entry's content, or `null` when it is larger than `maxBytes` (inflation stops there). Throws a
 * plain Error for an entry that cannot be read.
 */
export async function readEntry(bytes: Buffer, entry: ZipEntry, maxBytes: number): Promise<Buffer | null> {
  if (entry.size > maxBytes) return null;
  const data = entryData(bytes, entry);
  if (entry.method === 0) return data.length > maxBytes ? null : data;
  try {
    const content = await inflate(data, { maxOutputLength: Math.max(1, maxBytes) });
    return content.length > maxBytes ? null : content;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return null;
    throw error;
  }
}
