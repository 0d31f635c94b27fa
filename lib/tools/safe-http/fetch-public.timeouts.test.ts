import { describe, expect, it, vi } from "vitest";
import { FetchError } from "./errors";
import { fetchPublic } from "./fetch-public";
import type { Resolver } from "./resolve-hop";
import { fetchError, guardLoopbackOnly, localServersPerTest, MB } from "./testing/harness";

guardLoopbackOnly();
const servers = localServersPerTest();

const neverAnswers: Resolver = () => new Promise(() => {});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("the fetch succeeded");
    },
    (error: unknown) => error,
  );
}

describe("timeouts", () => {
  it("total timeout: a server that accepts the connection but never answers", async () => {
    const web = await servers.raw(() => {});
    const started = Date.now();
    const error = await fetchError(
      fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow], totalTimeoutMs: 200, connectTimeoutMs: 5000 }),
    );
    expect([error.kind, error.message]).toEqual(["failed", "timed out after 0.2 s"]);
    expect(Date.now() - started).toBeLessThan(2000);
    await web.closedConnection;
  });

  it("total timeout: a body that stalls halfway", async () => {
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("x".repeat(500));
    });
    const error = await fetchError(
      fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow], totalTimeoutMs: 200 }),
    );
    expect(error.message).toBe("timed out after 0.2 s");
  });

  it("the total timeout covers the whole redirect chain, not each request", async () => {
    const web = await servers.http((req, res) => {
      const left = Number(req.url?.split("/").pop());
      setTimeout(() => res.writeHead(302, { location: `/hop/${left + 1}` }).end(), 80);
    });
    const error = await fetchError(
      fetchPublic(web.url("/hop/0"), { maxBytes: MB, allowPrivate: [web.allow], totalTimeoutMs: 300 }),
    );
    expect(error.message).toBe("timed out after 0.3 s");
    expect(web.requests.length).toBeGreaterThanOrEqual(2);
    expect(web.requests.length).toBeLessThan(6);
  });

  it("the connect timeout ends once connected: a slow answer is bounded by the total timeout only", async () => {
    const web = await servers.raw(() => {});
    const error = await fetchError(
      fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow], connectTimeoutMs: 50, totalTimeoutMs: 400 }),
    );
    expect(error.message).toBe("timed out after 0.4 s");
  });

  it("connect timeout: a name whose DNS lookup never answers", async () => {
    const error = await fetchError(
      fetchPublic("http://slow-dns.test/", {
        maxBytes: MB,
        resolver: neverAnswers,
        connectTimeoutMs: 100,
        totalTimeoutMs: 5000,
      }),
    );
    expect([error.kind, error.message]).toEqual(["failed", "DNS lookup of slow-dns.test timed out after 0.1 s"]);
  });

  it("a refused connection is a failure with a readable reason", async () => {
    const web = await servers.http(() => {});
    const port = web.port;
    await web.close();
    const error = await fetchError(
      fetchPublic(`http://127.0.0.1:${port}/`, { maxBytes: MB, allowPrivate: [`127.0.0.1:${port}`] }),
    );
    expect([error.kind, error.message]).toEqual(["failed", "connection refused"]);
  });
});

describe("the caller's abort signal (Stop)", () => {
  it("aborting mid-body rejects with the signal's AbortError and closes the connection", async () => {
    const controller = new AbortController();
    const web = await servers.http((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("x".repeat(1024)); // then stall
      setTimeout(() => controller.abort(), 50);
    });
    const error = await rejection(
      fetchPublic(web.url(), {
        maxBytes: MB,
        allowPrivate: [web.allow],
        signal: controller.signal,
        totalTimeoutMs: 5000,
      }),
    );
    expect(error).toBe(controller.signal.reason);
    expect(error).not.toBeInstanceOf(FetchError);
    expect((error as Error).name).toBe("AbortError");
    await web.closedConnection;
  });

  it("an already-aborted signal rejects at once, before any DNS lookup", async () => {
    const controller = new AbortController();
    controller.abort();
    const resolver = vi.fn(neverAnswers);
    const error = await rejection(
      fetchPublic("http://example.test/", { maxBytes: MB, signal: controller.signal, resolver }),
    );
    expect((error as Error).name).toBe("AbortError");
    expect(resolver).not.toHaveBeenCalled();
  });

  it("aborting during the DNS lookup rejects at once with the AbortError", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await rejection(
      fetchPublic("http://slow-dns.test/", { maxBytes: MB, signal: controller.signal, resolver: neverAnswers }),
    );
    expect(error).toBe(controller.signal.reason);
  });

  it("aborting while waiting for the response rejects with the AbortError, not a timeout", async () => {
    const controller = new AbortController();
    const web = await servers.raw(() => setTimeout(() => controller.abort(), 30));
    const error = await rejection(
      fetchPublic(web.url(), {
        maxBytes: MB,
        allowPrivate: [web.allow],
        signal: controller.signal,
        totalTimeoutMs: 5000,
      }),
    );
    expect(error).toBe(controller.signal.reason);
    await web.closedConnection;
  });
});
