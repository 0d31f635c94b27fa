import { promisify } from "node:util";
import { crc32, deflateRaw } from "node:zlib";

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
const UTF8_NAMES = 0x0800;
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
    if (this.directory.length >= MAX_ZIP_ENTRIES) throw new ZipTooLargeError("more than 65,535 entries");
    const data = await deflate(content);
    const nameBytes = Buffer.from(name, "utf8");
    const { time, date } = dosTime(modified);
    const checksum = crc32(content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const size = local.length + nameBytes.length + data.length;
    if (this.offset + size > MAX_OFFSET || content.length > MAX_OFFSET) {
      throw new ZipTooLargeError("larger than 4 GiB");
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    local.copy(central, 8, 6, 26);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(this.offset, 42);
    this.directory.push(central, nameBytes);
    this.offset += size;
    return Buffer.concat([local, nameBytes, data]);
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
