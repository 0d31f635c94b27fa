import { AppError } from "@/lib/errors";

export function tooLarge(maxBytes: number, what = "The request body"): AppError {
  const size =
    maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MB` : `${Math.round(maxBytes / 1024)} KB`;
  return new AppError("payload_too_large:body", `${what} is larger than the ${size} limit.`, { details: { maxBytes } });
}

/**
 * Reads a request body up to `maxBytes`, failing with 413 as soon as it is passed (declared or streamed).
 * A declared length (what a browser sends with a file) is read straight into one buffer of that
 * size, so the body is held once — not as its chunks and then their concatenation, twice a 100 MB
 * import at the moment they meet. A body that sends more than it declared is still read whole.
 */
export async function readBodyLimited(request: Request, maxBytes: number, what?: string): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes, what);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  let buffer = Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
  let filled = 0;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes, what);
    }
    if (buffer && filled + value.length <= buffer.length) {
      buffer.set(value, filled);
      filled += value.length;
      continue;
    }
    if (buffer) chunks.push(buffer.subarray(0, filled));
    buffer = null;
    chunks.push(value);
  }
  return buffer ? buffer.subarray(0, filled) : Buffer.concat(chunks);
}
