/**
 * Reading a response body under the size limit: Content-Length is checked before reading,
 * and the bytes are counted again after decompression, so neither a lying header nor a gzip bomb
 * gets more than `maxBytes` into memory. Also parses Content-Type.
 */
import type { IncomingMessage } from "node:http";
import { Transform, type TransformCallback, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { FetchError, sizeLabel, toFetchError } from "./errors";

/** More stacked encodings than this is not a real server. */
const MAX_ENCODING_LAYERS = 3;

export async function readLimitedBody(response: IncomingMessage, maxBytes: number, url: string): Promise<Buffer> {
  const tooLarge = () => new FetchError("failed", `response exceeds ${sizeLabel(maxBytes)}`, { url, tooLarge: true });
  const declared = response.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  let decoders: Transform[];
  try {
    decoders = createDecoders(response.headers["content-encoding"], url);
  } catch (error) {
    response.destroy();
    throw error;
  }

  const chunks: Buffer[] = [];
  let total = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      // Failing the write makes pipeline destroy every stage, down to the socket.
      if (total > maxBytes) return callback(tooLarge());
      chunks.push(chunk);
      callback();
    },
  });
  try {
    await pipeline([response, ...decoders, sink]);
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if (isZlibError(error)) {
      throw new FetchError("failed", `could not decompress the response: ${(error as Error).message}`, {
        url,
        cause: error,
      });
    }
    if (response.destroyed && !response.complete) {
      throw new FetchError("failed", "connection closed before the response was complete", { url, cause: error });
    }
    throw toFetchError(error, url);
  }
  return Buffer.concat(chunks, total);
}

/** Decoders for a Content-Encoding list, outermost (last applied) first. Unknown codings are refused. */
function createDecoders(header: string | undefined, url: string): Transform[] {
  const codings = (header ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length > MAX_ENCODING_LAYERS) {
    throw new FetchError("failed", `too many Content-Encoding layers (${codings.length})`, { url });
  }
  return codings.reverse().map((coding) => {
    switch (coding) {
      case "gzip":
      case "x-gzip":
        // Sync flush, like browsers: a body truncated at a block boundary still yields its text.
        return zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      case "deflate":
        return new DeflateDecoder();
      case "br":
        return zlib.createBrotliDecompress({
          flush: zlib.constants.BROTLI_OPERATION_FLUSH,
          finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
        });
      default:
        throw new FetchError("failed", `unsupported Content-Encoding "${coding}"`, { url });
    }
  });
}

/**
 * "deflate" should be zlib-wrapped (RFC 9110) but some servers send raw deflate; like browsers,
 * pick by the first two bytes. Backpressure is passed through so a bomb cannot outrun the size check.
 */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | null = null;
  private pending: TransformCallback | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const inner = this.inner ?? this.start(chunk);
    if (inner.write(chunk)) callback();
    else this.pending = callback;
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) {
      callback();
      return;
    }
    this.inner.once("end", () => callback());
    this.inner.end();
  }

  override _read(size: number): void {
    this.inner?.resume();
    super._read(size);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }

  private start(first: Buffer): zlib.Inflate | zlib.InflateRaw {
    const options = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    const zlibWrapped = first.length < 2 || ((first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0);
    const inner = zlibWrapped ? zlib.createInflate(options) : zlib.createInflateRaw(options);
    inner.on("data", (data: Buffer) => {
      if (!this.push(data)) inner.pause();
    });
    inner.on("drain", () => {
      const callback = this.pending;
      this.pending = null;
      callback?.();
    });
    inner.on("error", (error) => this.destroy(error));
    this.inner = inner;
    return inner;
  }
}

function isZlibError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && /^Z_|^ERR__/.test(String(error.code));
}

export interface ContentType {
  contentType: string;
  mime: string;
  charset: string | null;
}

/** `text/html; charset="ISO-8859-1"` → mime `text/html`, charset `iso-8859-1`. */
export function parseContentType(header: string | undefined): ContentType {
  const contentType = header ?? "";
  const mime = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1]?.toLowerCase() ?? null;
  return { contentType, mime, charset };
}
