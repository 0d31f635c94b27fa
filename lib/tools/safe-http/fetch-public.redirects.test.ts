import { describe, expect, it } from "vitest";
import { fetchPublic } from "./fetch-public";
import { fetchError, guardLoopbackOnly, localServersPerTest, MB } from "./testing/harness";

guardLoopbackOnly();
const servers = localServersPerTest();

/** A server whose every request is answered with a redirect to `location`. */
function redirectingTo(location: string | ((port: number) => string), status = 302) {
  return servers.http((req, res) => {
    const port = Number(req.headers.host?.split(":").pop());
    res.writeHead(status, { location: typeof location === "string" ? location : location(port) }).end("moved");
  });
}

describe("every redirect hop is re-validated", () => {
  it.each([
    ["http://10.0.0.1/", "blocked", "redirect target is a private address (10.0.0.1)"],
    [
      "http://169.254.169.254/latest/meta-data/",
      "blocked",
      "redirect target is a cloud metadata address (169.254.169.254)",
    ],
    ["http://[fd00:ec2::254]/", "blocked", "redirect target is a cloud metadata address (fd00:ec2::254)"],
    ["http://0x7f.1/", "blocked", "redirect target is a loopback address (127.0.0.1)"],
    ["http://2130706433:8080/", "blocked", "redirect target is a loopback address (127.0.0.1)"],
    [
      "http://[::ffff:7f00:1]/",
      "blocked",
      "redirect target is an IPv4-mapped IPv6 address for 127.0.0.1 (::ffff:7f00:1)",
    ],
    ["http://100.100.100.200/", "blocked", "redirect target is a carrier-grade NAT address (100.100.100.200)"],
    ["http://[::]/", "blocked", "redirect target is an unspecified address (::)"],
    ["http://localhost/", "blocked", "redirect target is localhost"],
    ["http://admin.localhost./", "blocked", "redirect target is localhost"],
    ["file:///etc/passwd", "blocked", "redirect target uses file:, only http and https are allowed"],
    ["gopher://127.0.0.1:6379/_FLUSHALL", "blocked", "redirect target uses gopher:, only http and https are allowed"],
    ["http://user:pw@example.com/", "blocked", "redirect target contains credentials (user@host)"],
    ["http://[::1", "failed", "redirect Location is not a valid URL"],
  ])("Location %s is refused at that hop", async (location, kind, reason) => {
    const web = await redirectingTo(location);
    const error = await fetchError(fetchPublic(web.url("/start"), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([error.kind, error.message]).toEqual([kind, reason]);
    expect(web.requests).toHaveLength(1);
  });

  it("a Location on [::1] at another port, not in the allow-list, is refused", async () => {
    const web = await redirectingTo((port) => `http://[::1]:${port + 1}/`);
    const error = await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([error.kind, error.message]).toEqual(["blocked", "redirect target is a loopback address (::1)"]);
    expect(error.url).toBe(`http://[::1]:${web.port + 1}/`);
  });

  it("the allow-list entry for one port does not open another port on the same host", async () => {
    const other = await servers.http((_req, res) => res.end("internal admin"));
    const web = await redirectingTo(other.url("/admin"));
    const viaRedirect = await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([viaRedirect.kind, viaRedirect.message]).toEqual([
      "blocked",
      "redirect target is a loopback address (127.0.0.1)",
    ]);
    const direct = await fetchError(fetchPublic(other.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([direct.kind, direct.message]).toEqual(["blocked", "host is a loopback address (127.0.0.1)"]);
    expect(other.connections).toBe(0);
  });

  it("a relative Location is resolved against the current URL and followed", async () => {
    const web = await servers.http((req, res) => {
      if (req.url === "/docs/a/start") res.writeHead(301, { location: "../b/end?x=1" }).end();
      else res.end(`at ${req.url}`);
    });
    const result = await fetchPublic(web.url("/docs/a/start#frag"), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result.bytes.toString()).toBe("at /docs/b/end?x=1");
    expect(result.url).toBe(web.url("/docs/b/end?x=1#frag"));
  });

  it("a redirect without Location is the final response", async () => {
    const web = await servers.http((_req, res) => res.writeHead(302).end());
    const error = await fetchError(fetchPublic(web.url(), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([error.kind, error.message]).toEqual(["failed", "HTTP 302"]);
  });
});

describe("at most maxRequests requests per fetch (default 6)", () => {
  async function chainServer() {
    return servers.http((req, res) => {
      const left = Number(req.url?.split("/").pop());
      if (left > 0) res.writeHead(302, { location: `/hop/${left - 1}` }).end();
      else res.end("arrived");
    });
  }

  it("five redirects (six requests) are followed", async () => {
    const web = await chainServer();
    const result = await fetchPublic(web.url("/hop/5"), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result.bytes.toString()).toBe("arrived");
    expect(web.requests).toHaveLength(6);
  });

  it("the seventh request is refused and never sent", async () => {
    const web = await chainServer();
    const error = await fetchError(fetchPublic(web.url("/hop/6"), { maxBytes: MB, allowPrivate: [web.allow] }));
    expect([error.kind, error.message]).toEqual(["failed", "too many redirects (more than 6 requests)"]);
    expect(error.url).toBe(web.url("/hop/0"));
    expect(web.requests).toHaveLength(6);
  });

  it("maxRequests: 1 follows no redirect at all", async () => {
    const web = await chainServer();
    const error = await fetchError(
      fetchPublic(web.url("/hop/1"), { maxBytes: MB, allowPrivate: [web.allow], maxRequests: 1 }),
    );
    expect(error.message).toBe("too many redirects (more than 1 requests)");
    expect(web.requests).toHaveLength(1);
  });
});

describe("POST is sent on the first hop only", () => {
  async function formServer(status: number) {
    return servers.http((req, res) => {
      if (req.url === "/form") res.writeHead(status, { location: "/result" }).end();
      else res.end(`${req.method} result`);
    });
  }

  it.each([301, 302, 303])("a %i after POST becomes a GET without the body", async (status) => {
    const web = await formServer(status);
    const result = await fetchPublic(web.url("/form"), {
      maxBytes: MB,
      allowPrivate: [web.allow],
      method: "POST",
      body: "q=ollama",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(result.bytes.toString()).toBe("GET result");
    const [post, get] = web.requests;
    expect([post?.method, post?.body, post?.headers["content-type"]]).toEqual([
      "POST",
      "q=ollama",
      "application/x-www-form-urlencoded",
    ]);
    expect([get?.method, get?.body, get?.headers["content-type"], get?.headers["content-length"]]).toEqual([
      "GET",
      "",
      undefined,
      undefined,
    ]);
  });

  it.each([307, 308])("a %i after POST is refused rather than re-posting the body", async (status) => {
    const web = await formServer(status);
    const error = await fetchError(
      fetchPublic(web.url("/form"), { maxBytes: MB, allowPrivate: [web.allow], method: "POST", body: "q=1" }),
    );
    expect([error.kind, error.message]).toEqual([
      "failed",
      `refusing to resend a POST body after a ${status} redirect`,
    ]);
    expect(web.requests).toHaveLength(1);
  });

  it("a 307 after GET is followed as GET", async () => {
    const web = await formServer(307);
    const result = await fetchPublic(web.url("/form"), { maxBytes: MB, allowPrivate: [web.allow] });
    expect(result.bytes.toString()).toBe("GET result");
  });
});

describe("credentials do not follow a redirect to another origin", () => {
  it("drops Authorization and Cookie across origins, keeps them on the same origin", async () => {
    const target = await servers.http((_req, res) => res.end("target"));
    const web = await servers.http((req, res) => {
      if (req.url === "/same") res.writeHead(302, { location: "/cross" }).end();
      else if (req.url === "/cross") res.writeHead(302, { location: target.url("/landing") }).end();
    });
    await fetchPublic(web.url("/same"), {
      maxBytes: MB,
      allowPrivate: [web.allow, target.allow],
      headers: { Authorization: "Bearer secret", Cookie: "sid=1", "X-Trace": "t" },
    });
    expect(web.requests.map((request) => request.headers.authorization)).toEqual(["Bearer secret", "Bearer secret"]);
    expect(target.requests[0]?.headers).toMatchObject({ "x-trace": "t" });
    expect(target.requests[0]?.headers.authorization).toBeUndefined();
    expect(target.requests[0]?.headers.cookie).toBeUndefined();
  });
});
