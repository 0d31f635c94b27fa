import { afterEach, describe, expect, it, vi } from "vitest";
import { readBodyLimited } from "./body";

/** A request whose body comes in these chunks, with this Content-Length (or none). */
function requestOf(chunks: string[], declared?: number): Request {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Request("http://127.0.0.1/upload", {
    method: "POST",
    body,
    duplex: "half",
    headers: declared === undefined ? {} : { "content-length": String(declared) },
  } as RequestInit);
}

afterEach(() => vi.restoreAllMocks());

describe("readBodyLimited", () => {
  it("reads a body of declared length into one buffer: its chunks are never concatenated into a second copy", async () => {
    const concat = vi.spyOn(Buffer, "concat");
    const body = await readBodyLimited(requestOf(['{"a":', "1,", '"b":2}'], 13), 100);
    expect(body.toString()).toBe('{"a":1,"b":2}');
    expect(concat).not.toHaveBeenCalled();
  });

  it("reads a body that sends more, or less, than it declared whole", async () => {
    expect((await readBodyLimited(requestOf(["abc", "defgh"], 4), 100)).toString()).toBe("abcdefgh");
    expect((await readBodyLimited(requestOf(["ab"], 6), 100)).toString()).toBe("ab");
    expect((await readBodyLimited(requestOf(["ab", "cd"]), 100)).toString()).toBe("abcd");
  });

  it("refuses with 413 a body declared or streamed past the limit", async () => {
    await expect(readBodyLimited(requestOf(["x"], 11), 10)).rejects.toMatchObject({ code: "payload_too_large:body" });
    await expect(readBodyLimited(requestOf(["123456", "7890", "1"], 3), 10)).rejects.toMatchObject({
      code: "payload_too_large:body",
    });
  });
});
