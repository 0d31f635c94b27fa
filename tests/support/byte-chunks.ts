const encoder = new TextEncoder();

/** A body that arrives in these pieces (text is UTF-8 encoded), as a socket or fetch hands it on. */
export async function* byteChunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? encoder.encode(part) : part;
}
