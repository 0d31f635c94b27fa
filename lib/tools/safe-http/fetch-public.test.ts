import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import { describe, expect, it, vi } from "vitest";
import { type ConnectTarget, fetchPublic, USER_AGENT } from "./fetch-public";
import { fetchError, guardLoopbackOnly, localServersPerTest, MB, scriptedResolver } from "./testing/harness";
import { installLoopbackGuard } from "./testing/loopback-guard";
import { TLS_TEST_CERT, TLS_TEST_KEY } from "./testing/tls-fixture";

guardLoopbackOnly();
const servers = localServersPerTest();

/** Thrown by the connect hook so a validated public address is recorded but never connected to. */
class StopBeforeConnect extends Error {}

function recordingHook() {
  const targets: ConnectTarget[] = [];
  const connect = vi.fn((target: ConnectTarget) => {
    targets.push(target);
    if (!net.isIP(target.address) || !/^(127\.|::1$)/.test(target.address)) throw new StopBeforeConnect(target.address);
  });
  return { targets, connect };
}

describe("DNS answers go through the address policy before any connection", () => {
  it.each([
    [["10.0.0.5"], "a private address (10.0.0.5)"],
    [["127.0.0.1"], "a loopback address (127.0.0.1)"],
    [["169.254.169.254"], "a cloud metadata address (169.254.169.254)"],
    [["100.64.1.1"], "a carrier-grade NAT address (100.64.1.1)"],
    [["0.0.0.0"], "an unspecified address (0.0.0.0)"],
    [["224.0.0.251"], "a multicast address (224.0.0.251)"],
    [["::1"], "a loopback address (::1)"],
    [["fe80::1"], "a link-local address (fe80::1)"],
    [["fd00::1"], "a private address (unique local) (fd00::1)"],
    [["::ffff:10.0.0.1"], "an IPv4-mapped IPv6 address for 10.0.0.1 (::ffff:a00:1)"],
    [["64:ff9b::7f00:1"], "a NAT64 address for 127.0.0.1, a loopback address (64:ff9b::7f00:1)"],
    [["93.184.216.34", "10.0.0.5"], "a private address (10.0.0.5)"],
    [["2606:4700::1111", "fd12::1"], "a private address (unique local) (fd12::1)"],
  ])("a name resolving to %j is refused and never connected to", async (answers, description) => {
    const { resolver, asked } = scriptedResolver({ "internal.test": answers });
    const hook = recordingHook();
    const error = await fetchError(
      fetchPublic("https://internal.test/x", { maxBytes: MB, resolver, connect: hook.connect }),
    );
    expect(error.kind).toBe("blocked");
    expect(error.message).toBe(`internal.test resolves to ${description}`);
    expect(error.url).toBe("https://internal.test/x");
    expect(asked).toEqual(["internal.test"]);
    expect(hook.connect).not.toHaveBeenCalled();
  });

  it("connects to exactly the validated address, with the URL's hostname, port and scheme", async () => {
    const { resolver, asked } = scriptedResolver({ "example.com": ["93.184.216.34"] });
    const hook = recordingHook();
    const outcome = fetchPublic("https://Example.com/page", { maxBytes: MB, resolver, connect: hook.connect });
    await expect(outcome).rejects.toBeInstanceOf(StopBeforeConnect);
    expect(hook.targets).toEqual([
      { address: "93.184.216.34", family: 4, port: 443, hostname: "example.com", protocol: "https:" },
    ]);
    expect(asked).toEqual(["example.com"]);
  });

  it("a literal address in odd notation is normalised and connected to without DNS", async () => {
    const { resolver, asked } = scriptedResolver({});
    const hook = recordingHook();
    const outcome = fetchPublic("http://0x08080808:8080/", { maxBytes: MB, resolver, connect: hook.connect });
    await expect(outcome).rejects.toBeInstanceOf(StopBeforeConnect);
    expect(hook.targets).toEqual([
      { address: "8.8.8.8", family: 4, port: 8080, hostname: "8.8.8.8", protocol: "http:" },
    ]);
    expect(asked).toEqual([]);
  });

  it.each([
    [{}, "could not resolve nowhere.test (ENOTFOUND)"],
    [{ "nowhere.test": [] }, "could not resolve nowhere.test"],
    [{ "nowhere.test": ["not-an-address"] }, "DNS returned an invalid address for nowhere.test"],
  ])("a failed or empty resolution is a failure, not a connection (%j)", async (table, reason) => {
    const { resolver } = scriptedResolver(table);
    const hook = recordingHook();
    const error = await fetchError(
      fetchPublic("http://nowhere.test/", { maxBytes: MB, resolver, connect: hook.connect }),
    );
    expect([error.kind, error.message]).toEqual(["failed", reason]);
    expect(hook.connect).not.toHaveBeenCalled();
  });

  it("resolves once per hop and pins the answer: a rebinding second answer is never used", async () => {
    const web = await servers.http((_req, res) => res.end("pinned"));
    let calls = 0;
    const { resolver, asked } = scriptedResolver({
      "rebind.test": () => (calls++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"]),
    });
    const result = await fetchPublic(`http://rebind.test:${web.port}/`, {
      maxBytes: MB,
      resolver,
      allowPrivate: [`rebind.test:${web.port}`],
    });
    // "rebind.test" exists only in the scripted resolver, so the connection can only have used its first answer.
    expect(result.bytes.toString()).toBe("pinned");
    expect(asked).toEqual(["rebind.test"]);
    expect(web.requests[0]?.headers.host).toBe(`rebind.test:${web.port}`);
  });

  it("tries the next validated address when one refuses the connection", async () => {
    const web = await servers.http((_req, res) => res.end("second address"));
    const { resolver } = scriptedResolver({ "dual.test": ["::1", "127.0.0.1"] });
    const hook = recordingHook();
    const result = await fetchPublic(`http://dual.test:${web.port}/`, {
      maxBytes: MB,
      resolver,
      connect: hook.connect,
      allowPrivate: [`dual.test:${web.port}`],
    });
    expect(result.bytes.toString()).toBe("second address");
    expect(hook.targets.map((target) => target.address)).toEqual(["::1", "127.0.0.1"]);
  });

  it("a redirect to a name that resolves to a private address is refused at that hop", async () => {
    const web = await servers.http((_req, res) => res.writeHead(302, { location: "http://internal.test/admin" }).end());
    const { resolver } = scriptedResolver({ "internal.test": ["10.0.0.5"] });
    const hook = recordingHook();
    const error = await fetchError(
      fetchPublic(web.url("/start"), { maxBytes: MB, resolver, connect: hook.connect, allowPrivate: [web.allow] }),
    );
    expect([error.kind, error.message]).toEqual([
      "blocked",
      "redirect target internal.test resolves to a private address (10.0.0.5)",
    ]);
    expect(error.url).toBe("http://internal.test/admin");
    expect(hook.targets.map((target) => target.address)).toEqual(["127.0.0.1"]);
  });
});

describe("a successful fetch", () => {
  it("returns the body, final URL, status, headers, and the charset from Content-Type", async () => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-type": 'Text/HTML; Charset="ISO-8859-1"', "x-test": "yes" });
      res.end(Buffer.from("café", "latin1"));
    });
    const result = await fetchPublic(web.url("/page?q=1"), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result).toMatchObject({
      url: web.url("/page?q=1"),
      status: 200,
      contentType: 'Text/HTML; Charset="ISO-8859-1"',
      mime: "text/html",
      charset: "iso-8859-1",
    });
    expect(result.headers["x-test"]).toBe("yes");
    expect(result.bytes.toString("latin1")).toBe("café");
    expect(web.requests[0]?.headers).toMatchObject({
      "user-agent": USER_AGENT,
      "accept-encoding": "gzip, deflate, br",
      host: `127.0.0.1:${web.port}`,
    });
  });

  it("has no charset and an empty mime when the server sends no Content-Type", async () => {
    const web = await servers.http((_req, res) => {
      res.removeHeader("content-type");
      res.end("plain");
    });
    const result = await fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] });
    expect([result.contentType, result.mime, result.charset]).toEqual(["", "", null]);
  });

  it("caller headers cannot replace Host, Accept-Encoding or the body framing", async () => {
    const web = await servers.http((_req, res) => res.end("ok"));
    await fetchPublic(web.url(), {
      maxBytes: MB,
      allowPrivate: [web.allow],
      headers: {
        Host: "evil.test",
        "Accept-Encoding": "zstd",
        "Transfer-Encoding": "chunked",
        Accept: "application/json",
      },
    });
    expect(web.requests[0]?.headers).toMatchObject({
      host: `127.0.0.1:${web.port}`,
      "accept-encoding": "gzip, deflate, br",
      accept: "application/json",
    });
    expect(web.requests[0]?.headers["transfer-encoding"]).toBeUndefined();
  });

  it.each([404, 403, 429, 500])("a final HTTP %i is a failure naming the status", async (status) => {
    const web = await servers.http((_req, res) => res.writeHead(status).end("nope"));
    const error = await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([error.kind, error.message, error.status]).toEqual(["failed", `HTTP ${status}`, status]);
  });
});

describe("TLS uses the URL's hostname while connecting to the validated address", () => {
  it("sends the hostname as SNI and verifies the certificate (a self-signed one is refused)", async () => {
    const names: string[] = [];
    const context = tls.createSecureContext({ key: TLS_TEST_KEY, cert: TLS_TEST_CERT });
    const server = https.createServer(
      {
        key: TLS_TEST_KEY,
        cert: TLS_TEST_CERT,
        SNICallback: (servername, done) => {
          names.push(servername);
          done(null, context);
        },
      },
      (_req, res) => res.end("secret"),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const { resolver } = scriptedResolver({ "tls.test": ["127.0.0.1"] });
      const error = await fetchError(
        fetchPublic(`https://tls.test:${port}/`, { maxBytes: MB, resolver, allowPrivate: [`tls.test:${port}`] }),
      );
      expect(error.kind).toBe("failed");
      expect(error.message).toMatch(/^TLS error: .*self[- ]signed/i);
      await vi.waitFor(() => expect(names).toEqual(["tls.test"]));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the test suite's own loopback guard", () => {
  it("refuses a non-loopback connection without letting it out", () => {
    const attempted: unknown[] = [];
    const real = net.Socket.prototype.connect;
    // Underneath the guard, a recorder stands in for the real connect, so this self-test sends nothing.
    net.Socket.prototype.connect = function record(this: net.Socket, ...args: unknown[]) {
      attempted.push(args);
      return this;
    } as typeof real;
    const guard = installLoopbackGuard();
    try {
      expect(() => new net.Socket().connect({ host: "192.0.2.1", port: 9 })).toThrow(/loopback guard/);
      expect(() => new net.Socket().connect({ host: "example.com", port: 80 })).toThrow(/loopback guard/);
      new net.Socket().connect({ host: "127.0.0.1", port: 9 });
      expect(guard.violations).toEqual(["192.0.2.1", "example.com (system DNS)"]);
      expect(attempted).toHaveLength(1);
    } finally {
      guard.restore();
      net.Socket.prototype.connect = real;
    }
  });
});
