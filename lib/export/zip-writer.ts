import { promisify } from "node:util";
import { constants, crc32, deflateRaw } from "node:zlib";

/**
 * Writes a ZIP archive entry by entry, so an export of every conversation holds one entry in memory
 * at a time: each entry's local header and deflated data as soon as it is added, the central
 * directory at the end. Names are UTF-8 (flag bit 11). No ZIP64: past 65,535 entries or 4 GiB the
 * writer throws rather than write an archive nobody can read.
 */

const deflate = promisify(deflateRaw);

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const EOCD = 0x06054b50;
const DESCRIPTOR = 0x08074b50;
const UTF8_NAMES = 0x0800;
const DATA_DESCRIPTOR = 0x0008;
/** Content a streamed entry gathers before deflating it: what such an entry holds at once. */
const STREAM_PIECE_BYTES = 256 * 1024;
const DEFLATE = 8;
const MAX_OFFSET = 0xffffffff;
/** The most entries a ZIP without ZIP64 holds: what the export writes and the import reads. */
export const MAX_ZIP_ENTRIES = 0xffff;

export class ZipTooLargeError extends Error {}

export class ZipWriter {
  private offset = 0;
  private readonly directory: Buffer[] = [];

  /** The bytes of one entry (header and deflated content), to be written next. */
  async entry(name: string, content: Buffer, modified: Date): Promise<Buffer> {
    this.checkCount();
    const data = await deflate(content);
    const header = this.header(name, modified, 0);
    header.local.writeUInt32LE(crc32(content), 14);
    header.local.writeUInt32LE(data.length, 18);
    header.local.writeUInt32LE(content.length, 22);
    const size = header.local.length + header.name.length + data.length;
    this.record(header, size, content.length);
    return Buffer.concat([header.local, header.name, data]);
  }

  /**
   * One entry written as its content comes, piece by piece: each ~256 KiB deflated on its own
   * (sync-flushed, so the pieces make one deflate stream) and written at once; its CRC and sizes
   * follow the data (a data descriptor, flag bit 3) and the central directory.
   */
  async *streamEntry(name: string, content: AsyncIterable<string | Buffer>, modified: Date): AsyncGenerator<Buffer> {
    this.checkCount();
    const header = this.header(name, modified, DATA_DESCRIPTOR);
    yield Buffer.concat([header.local, header.name]);
    let checksum = 0;
    let size = 0;
    let compressed = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const deflatePending = async (last: boolean): Promise<Buffer> => {
      const input = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      checksum = crc32(input, checksum);
      size += input.length;
      const data = await deflate(input, last ? {} : { finishFlush: constants.Z_SYNC_FLUSH });
      compressed += data.length;
      if (this.offset + header.local.length + header.name.length + compressed > MAX_OFFSET || size > MAX_OFFSET) {
        throw new ZipTooLargeError("larger than 4 GiB");
      }
      return data;
    };
    for await (const piece of content) {
      const bytes = typeof piece === "string" ? Buffer.from(piece, "utf8") : piece;
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= STREAM_PIECE_BYTES) yield await deflatePending(false);
    }
    yield await deflatePending(true);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(DESCRIPTOR, 0);
    descriptor.writeUInt32LE(checksum, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    header.local.writeUInt32LE(checksum, 14);
    header.local.writeUInt32LE(compressed, 18);
    header.local.writeUInt32LE(size, 22);
    this.record(header, header.local.length + header.name.length + compressed + descriptor.length, size);
    yield descriptor;
  }

  private checkCount(): void {
    if (this.directory.length / 2 >= MAX_ZIP_ENTRIES) throw new ZipTooLargeError("more than 65,535 entries");
  }

  /** An entry's local header (CRC and sizes still zero) and its name's bytes. */
  private header(name: string, modified: Date, flags: number): { local: Buffer; name: Buffer } {
    const nameBytes = Buffer.from(name, "utf8");
    const { time, date } = dosTime(modified);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES | flags, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt16LE(nameBytes.length, 26);
    return { local, name: nameBytes };
  }

  /** The entry's central directory record (from its local header, CRC and sizes filled in), once it is written. */
  private record(header: { local: Buffer; name: Buffer }, size: number, contentLength: number): void {
    if (this.offset + size > MAX_OFFSET || contentLength > MAX_OFFSET) throw new ZipTooLargeError("larger than 4 GiB");
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    header.local.copy(central, 8, 6, 26);
    central.writeUInt16LE(header.name.length, 28);
    central.writeUInt32LE(this.offset, 42);
    this.directory.push(central, header.name);
    this.offset += size;
  }

  /** The central directory and its end record: the archive's last bytes. */
  end(): Buffer {
    const directory = Buffer.concat(this.directory);
    if (this.offset + directory.length > MAX_OFFSET) throw new ZipTooLargeError("larger than 4 GiB");
    const record = Buffer.alloc(22);
    record.writeUInt32LE(EOCD, 0);
    record.writeUInt16LE(this.directory.length / 2, 8);
    record.writeUInt16LE(this.directory.length / 2, 10);
    record.writeUInt32LE(directory.length, 12);
    record.writeUInt32LE(this.offset, 16);
    return Buffer.concat([directory, record]);
  }
}

/** MS-DOS time and date (local fields, two-second resolution), as ZIP stores them; in UTC here. */
function dosTime(at: Date): { time: number; date: number } {
  const year = Math.min(Math.max(at.getUTCFullYear(), 1980), 2107);
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}
