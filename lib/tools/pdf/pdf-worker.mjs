// A worker process that parses PDFs with pdf.js, one document at a time (started by pdf-process.ts).
// Plain JavaScript, loaded by absolute path, so it runs the same under vitest and `next start` and
// no bundler touches it. The page text is joined in the server (page-text.ts): this file only
// sends each page's text items back. Requests: `open` (bytes, options, caps), `page` (index),
// `close`; replies: `OpenReply` and `PageReply` in pdf-worker-host.ts, `PackedPage` in packed-page.ts.
import fs from "node:fs";
import os from "node:os";

// Parsing yields to the server. On Linux the nice value is per thread: every thread started so far
// (V8's garbage collection and compiler threads among them) is lowered, and threads started later
// inherit it from the one that starts them.
for (const thread of process.platform === "linux" ? fs.readdirSync("/proc/self/task") : [0]) {
  try {
    os.setPriority(Number(thread), 19);
  } catch {
    // not allowed here (or the thread is gone): it runs at normal priority
  }
}
// The server went away: nothing is left to do (it kills a busy worker itself when it exits).
process.on("disconnect", () => process.exit(0));

/**
 * pdf.js decodes a stream into one buffer that doubles as it grows (and sizes some buffers from
 * the file's own claims). Typed arrays live outside the V8 heap, so `resourceLimits` does not see
 * them: every typed-array constructor here refuses a buffer over the cap, and `bufferCapHit` tells
 * the request that pdf.js hit it (pdf.js swallows many errors and would otherwise return a partial
 * page). Without DecompressionStream, pdf.js inflates with its own decoder, through these buffers.
 */
let bufferCapHit = false;
/** The current document's caps (set by `open`). */
let cap = Number.POSITIVE_INFINITY;
let maxPageItems = 0;
let maxPageChars = 0;
const typedArrays = [
  "ArrayBuffer",
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
];
for (const name of typedArrays) {
  const Native = globalThis[name];
  const unit = Native.BYTES_PER_ELEMENT ?? 1;
  globalThis[name] = new Proxy(Native, {
    construct(target, args, newTarget) {
      const [length, init] = args;
      const requested = Math.max(
        typeof length === "number" ? length * unit : 0,
        typeof init?.maxByteLength === "number" ? init.maxByteLength : 0,
      );
      if (requested > cap) {
        bufferCapHit = true;
        throw new RangeError(`A buffer of ${requested} bytes is over the PDF stream limit.`);
      }
      return Reflect.construct(target, args, newTarget);
    },
  });
}
delete globalThis.DecompressionStream;

// Loaded only now, so pdf.js captures the guarded constructors. Loading the worker module first
// registers `globalThis.pdfjsWorker`: pdf.js then runs its own "worker" in this process.
await import("pdfjs-dist/legacy/build/pdf.worker.mjs");
const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");

/** @type {import("pdfjs-dist/legacy/build/pdf.mjs").PDFDocumentProxy | undefined} */
let doc;

const errorFields = (error) => ({
  name: error instanceof Error ? error.name : "Error",
  message: error instanceof Error ? error.message : String(error),
});

async function open({ bytes, options, maxBufferBytes, maxPageItems: items, maxPageChars: chars }) {
  await close();
  cap = Math.max(maxBufferBytes, bytes.byteLength);
  maxPageItems = items;
  maxPageChars = chars;
  bufferCapHit = false;
  // Over IPC the bytes may arrive as a Buffer, which pdf.js refuses: the same memory, as a plain view.
  const task = pdfjs.getDocument({
    ...options,
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  });
  try {
    doc = await task.promise;
    return { type: "opened", pageCount: doc.numPages };
  } catch (error) {
    await task.destroy().catch(() => undefined);
    return { type: "failed", ...errorFields(error), bufferCapHit };
  }
}

async function close() {
  const closing = doc;
  doc = undefined;
  await closing?.destroy();
  return { type: "closed" };
}

/**
 * A page's text items as one string and a few typed arrays (layout: `PackedPage`), so
 * the server receives them without deserialising an object per item.
 */
function pack(items, styles) {
  const count = items.length;
  const lengths = new Uint32Array(count);
  const numbers = new Float64Array(count * 8);
  const fontIndex = new Uint32Array(count);
  const dirIndex = new Uint8Array(count);
  const eol = new Uint8Array(count);
  const fonts = new Map();
  const dirs = new Map();
  const indexIn = (table, key) => {
    if (!table.has(key)) table.set(key, table.size);
    return table.get(key);
  };
  items.forEach((item, i) => {
    lengths[i] = item.str.length;
    for (let j = 0; j < 6; j++) numbers[i * 8 + j] = item.transform[j] ?? 0;
    numbers[i * 8 + 6] = item.width;
    numbers[i * 8 + 7] = item.height;
    fontIndex[i] = indexIn(fonts, item.fontName);
    dirIndex[i] = indexIn(dirs, item.dir);
    eol[i] = item.hasEOL ? 1 : 0;
  });
  const page = {
    type: "page",
    text: items.map((item) => item.str).join(""),
    lengths,
    numbers,
    fontIndex,
    fonts: [...fonts.keys()],
    dirIndex,
    dirs: [...dirs.keys()],
    eol,
    styles,
  };
  return page;
}

const skipped = (cause, message) => ({ type: "skipped", cause, message });

async function page(index) {
  bufferCapHit = false;
  /** @type {import("pdfjs-dist/legacy/build/pdf.mjs").PDFPageProxy | undefined} */
  let proxy;
  try {
    proxy = await doc.getPage(index + 1);
    const reader = proxy.streamTextContent().getReader();
    const items = [];
    const styles = {};
    let chars = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const item of value.items) {
        if (!("str" in item)) continue; // marked-content boundaries carry no text
        chars += item.str.length;
        // The reader is dropped, not cancelled (a cancel races with pdf.js's own enqueue and can
        // throw in its message handler): pdf.js then pauses that page once its queue is full.
        if (items.length === maxPageItems) return skipped("items");
        if (chars > maxPageChars) return skipped("chars");
        items.push(item);
      }
      for (const [name, style] of Object.entries(value.styles)) {
        styles[name] = { vertical: style.vertical === true, fontFamily: style.fontFamily };
      }
    }
    return bufferCapHit ? skipped("buffer") : pack(items, styles);
  } catch (error) {
    return bufferCapHit ? skipped("buffer") : skipped("error", errorFields(error).message);
  } finally {
    proxy?.cleanup();
  }
}

const handlers = { open, page: (request) => page(request.index), close };
process.on("message", async (request) => {
  process.send({ id: request.id, ...(await handlers[request.type](request)) });
});
