// npm run bench:import-memory — what measuring a ZIP bomb being imported holds, without a server: a
// deflated entry of IMPORT_BENCH_MB (default 400) MB of spaces is measured under a 500 MB cap, once
// as `inflatedSize` does it (a stream whose chunks are counted and dropped) and once as the import
// did before (one-shot inflate into a buffer up to the cap). Prints the peak of this process's
// ArrayBuffer memory (sampled every 5 ms) and RSS in both.
import { promisify } from "node:util";
import { createDeflateRaw, inflateRaw } from "node:zlib";
import { inflatedSize, zipEntries } from "@/lib/files/zip-entries";
import { sizeFromEnv } from "./smoke-mode.mts";

const MB = 1024 * 1024;
const SIZE_MB = sizeFromEnv("IMPORT_BENCH_MB", 400, 4);
const CAP = 500 * MB;

/** SIZE_MB of spaces deflated, made a MB at a time (the input is never held whole). */
async function deflatedSpaces(): Promise<Buffer> {
  const deflater = createDeflateRaw();
  const out: Buffer[] = [];
  deflater.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => deflater.on("end", resolve));
  const block = Buffer.alloc(MB, 0x20);
  for (let i = 0; i < SIZE_MB; i++) {
    if (!deflater.write(block)) await new Promise((resolve) => deflater.once("drain", resolve));
  }
  deflater.end();
  await done;
  return Buffer.concat(out);
}

async function peakDuring(work: () => Promise<unknown>): Promise<{ arrayBuffersMb: number; rssMb: number }> {
  globalThis.gc?.();
  const base = process.memoryUsage();
  let peakBuffers = base.arrayBuffers;
  let peakRss = base.rss;
  const timer = setInterval(() => {
    const now = process.memoryUsage();
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
    peakRss = Math.max(peakRss, now.rss);
  }, 5);
  await work();
  clearInterval(timer);
  return {
    arrayBuffersMb: Math.round((peakBuffers - base.arrayBuffers) / MB),
    rssMb: Math.round((peakRss - base.rss) / MB),
  };
}

const compressed = await deflatedSpaces();
// The directory claims 10 bytes: only measuring finds out.
const bomb = makeRawZip(compressed);
const entries = zipEntries(bomb, 10) ?? [];

const streamed = await peakDuring(() => inflatedSize(bomb, entries, CAP));
const oneShot = await peakDuring(() => promisify(inflateRaw)(compressed, { maxOutputLength: CAP }).catch(() => null));
console.log(`entry: ${SIZE_MB} MB inflated from ${Math.round(compressed.length / 1024)} KB, cap 500 MB`);
console.log(`streamed, counted and dropped: +${streamed.arrayBuffersMb} MB buffers, +${streamed.rssMb} MB RSS at peak`);
console.log(`one-shot into a buffer (before): +${oneShot.arrayBuffersMb} MB buffers, +${oneShot.rssMb} MB RSS at peak`);

/** One deflated entry holding `data` as its deflated bytes, its sizes understated. */
function makeRawZip(data: Buffer): Buffer {
  const name = Buffer.from("0001 bomb.json");
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(10, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(10, 24);
  central.writeUInt16LE(name.length, 28);
  const directoryOffset = local.length + name.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}
