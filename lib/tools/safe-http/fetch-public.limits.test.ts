import { Readable } from "node:stream";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { fetchPublic } from "./fetch-public";
import { fetchError, guardLoopbackOnly, localServersPerTest, MB } from "./testing/harness";
import { writeForever } from "./testing/local-server";

guardLoopbackOnly();
const servers = localServersPerTest();

const zeros = (bytes: number) => Buffer.alloc(bytes);
const encoders: Record<string, (data: Buffer) => Buffer> = {
  gzip: (data) => zlib.gzipSync(data),
  deflate: (data) => zlib.deflateSync(data),
  "deflate (raw)": (data) => zlib.deflateRawSync(data),
  br: (data) => zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
};
const headerFor = (name: string) => name.split(" ")[0]!;

function expectTooLarge(error: { kind: string; message: string; tooLarge: boolean }, label = "1 MB") {
  expect([error.kind, error.message, error.tooLarge]).toEqual(["failed", `response exceeds ${label}`, true]);
}

describe("size limit on Content-Length and on the bytes actually read", () => {
  it("a Content-Length over the limit is refused before the body is read", async () => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-length": String(2 * MB) });
      res.flushHeaders(); // headers only: a client that waited for the body would hang until the timeout
    });
    const started = Date.now();
    const error = await fetchError(
      fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow], totalTimeoutMs: 5000 }),
    );
    expectTooLarge(error);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a body of exactly maxBytes is accepted, one byte more is refused", async () => {
    const web = await servers.http((req, res) => res.end(zeros(req.url === "/exact" ? 1000 : 1001)));
    const ok = await fetchPublic(web.url("/exact"), { maxBytes: 1000, allowPrivate: [web.allow] });
    expect(ok.bytes.length).toBe(1000);
    expectTooLarge(
      await fetchError(fetchPublic(web.url("/over"), { maxBytes: 1000, allowPrivate: [web.allow] })),
      "1000 bytes",
    );
  });

  it("a lying Content-Length (10 bytes declared, 10 MB sent) yields only the declared bytes, never the flood", async () => {
    // HTTP framing ends the body at the declared length; the rest of the flood must not reach the result or crash.
    const web = await servers.raw((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Type: text/plain\r\n\r\n0123456789");
      writeForever(socket, Buffer.alloc(64 * 1024, 0x78));
    });
    const result = await fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result.bytes.toString()).toBe("0123456789");
    await web.closedConnection;
  });

  it("a Content-Length under the limit does not exempt the body from counting after decompression", async () => {
    const body = zlib.gzipSync(zeros(10 * MB));
    expect(body.length).toBeLessThan(MB);
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-length": String(body.length) }).end(body);
    });
    expectTooLarge(await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] })));
  });

  it("an endless body is cut off at the limit and the connection is closed", async () => {
    const web = await servers.http((_req, res) => writeForever(res, Buffer.alloc(64 * 1024, 0x61)));
    expectTooLarge(await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] })));
    await web.closedConnection;
  });

  it("an endless close-delimited HTTP/1.0 body is cut off at the limit", async () => {
    const web = await servers.raw((socket) => {
      socket.write("HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n");
      writeForever(socket, Buffer.alloc(64 * 1024, 0x61));
    });
    expectTooLarge(await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] })));
    await web.closedConnection;
  });
});

describe("decompression bombs are stopped by counting decompressed bytes", () => {
  it.each(Object.keys(encoders))("a %s bomb (small on the wire, 32 MB inflated) is refused", async (name) => {
    const body = encoders[name]!(zeros(32 * MB));
    expect(body.length).toBeLessThan(MB / 4);
    const web = await servers.http((_req, res) =>
      res.writeHead(200, { "content-encoding": headerFor(name) }).end(body),
    );
    expectTooLarge(await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] })));
  });

  it("an endless gzip stream is cut off at the limit and the connection is closed", async () => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      const source = new Readable({ read: () => void source.push(zeros(256 * 1024)) });
      source.pipe(zlib.createGzip()).pipe(res);
      res.on("close", () => source.destroy());
    });
    expectTooLarge(await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] })));
    await web.closedConnection;
  });
});

describe("Content-Encoding is decoded, and only known encodings are accepted", () => {
  const text = Buffer.from("Grüße aus dem Netz. ".repeat(200));

  it.each(Object.keys(encoders))("decodes %s", async (name) => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-encoding": headerFor(name) }).end(encoders[name]!(text));
    });
    const result = await fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result.bytes.equals(text)).toBe(true);
  });

  it("decodes stacked encodings in reverse order of application", async () => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip, br" }).end(zlib.brotliCompressSync(zlib.gzipSync(text)));
    });
    const result = await fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result.bytes.equals(text)).toBe(true);
  });

  it.each([
    ["zstd", 'unsupported Content-Encoding "zstd"'],
    ["compress", 'unsupported Content-Encoding "compress"'],
    ["gzip, gzip, gzip, gzip", "too many Content-Encoding layers (4)"],
  ])("refuses Content-Encoding %j", async (encoding, reason) => {
    const web = await servers.http((_req, res) => res.writeHead(200, { "content-encoding": encoding }).end("data"));
    const error = await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([error.kind, error.message]).toEqual(["failed", reason]);
  });

  it.each(["gzip", "br"])("a corrupt %s body is a failure, not a crash", async (encoding) => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-encoding": encoding }).end(Buffer.from("this is not compressed at all"));
    });
    const error = await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect(error.kind).toBe("failed");
    expect(error.message).toMatch(/^could not decompress the response/);
  });
});
