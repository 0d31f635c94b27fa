import { describe, expect, it } from "vitest";
import { checkUrl, matchesAllowList } from "./url-policy";

function refusal(url: string, allowPrivate?: string[]) {
  const result = checkUrl(url, allowPrivate);
  if (result.ok) throw new Error(`${url} was accepted`);
  return { kind: result.kind, reason: result.reason };
}

describe("checkUrl refuses URLs that are not absolute http(s) URLs", () => {
  it.each([
    ["", /URL is empty/],
    ["   ", /URL is empty/],
    ["example.com", /not a valid absolute URL/],
    ["/etc/passwd", /not a valid absolute URL/],
    ["//example.com/x", /not a valid absolute URL/],
    ["http://", /not a valid absolute URL/],
    ["http://[::1", /not a valid absolute URL/],
    ["http://[fe80::1%25eth0]/", /not a valid absolute URL/],
    ["http://1.2.3.4.5/", /not a valid absolute URL/],
    ["http://256.0.0.1/", /not a valid absolute URL/],
  ])("%j is invalid_url", (url, reason) => {
    expect(refusal(url)).toEqual({ kind: "invalid_url", reason: expect.stringMatching(reason) });
  });
});

describe("checkUrl allows only the http and https schemes", () => {
  it.each([
    ["file:///etc/passwd", "file:"],
    ["ftp://example.com/", "ftp:"],
    ["gopher://example.com:70/_GET", "gopher:"],
    ["data:text/html,<script>alert(1)</script>", "data:"],
    ["javascript:alert(1)", "javascript:"],
    ["ws://example.com/", "ws:"],
    ["dict://127.0.0.1:11211/stat", "dict:"],
  ])("%s is blocked", (url, scheme) => {
    expect(refusal(url)).toEqual({ kind: "blocked", reason: `only http and https URLs are allowed, not ${scheme}` });
  });
});

describe("checkUrl refuses credentials in the URL", () => {
  it.each([
    "http://user:pass@example.com/",
    "http://user@example.com/",
    "http://:pass@example.com/",
    "http://good.com@127.0.0.1/",
    "http://example.com:80@evil.example/",
    "https://example.com%40evil.example@evil.example/",
  ])("%s is blocked", (url) => {
    expect(refusal(url)).toEqual({ kind: "blocked", reason: "URLs with credentials (user@host) are not allowed" });
  });

  it("keeps refusing credentials on an allow-listed host", () => {
    expect(refusal("http://a:b@127.0.0.1:8080/", ["127.0.0.1:8080"]).kind).toBe("blocked");
  });
});

describe("checkUrl refuses localhost names", () => {
  it.each([
    "http://localhost/",
    "http://LOCALHOST/",
    "http://localhost./",
    "http://LocalHost.:8080/",
    "http://foo.localhost/",
    "http://a.b.localhost./admin",
    "http://localhost%2e/",
  ])("%s is blocked", (url) => {
    expect(refusal(url)).toEqual({ kind: "blocked", reason: "localhost is not allowed" });
  });
});

describe("checkUrl refuses literal addresses that are not global unicast, in every notation", () => {
  it.each([
    ["http://127.0.0.1/", "a loopback address (127.0.0.1)"],
    ["http://2130706433/", "a loopback address (127.0.0.1)"],
    ["http://0x7f.1/", "a loopback address (127.0.0.1)"],
    ["http://017700000001/", "a loopback address (127.0.0.1)"],
    ["http://127.1/", "a loopback address (127.0.0.1)"],
    ["http://0x7f000001/", "a loopback address (127.0.0.1)"],
    ["http://127.0.0.1./", "a loopback address (127.0.0.1)"],
    ["http://%31%32%37.0.0.1/", "a loopback address (127.0.0.1)"],
    ["http://１２７．０．０．１/", "a loopback address (127.0.0.1)"],
    ["http://127。0。0。1/", "a loopback address (127.0.0.1)"],
    ["http://127.0.0.1\\@example.com/", "a loopback address (127.0.0.1)"],
    ["http://[::1]/", "a loopback address (::1)"],
    ["http://[0:0:0:0:0:0:0:1]:8080/", "a loopback address (::1)"],
    ["http://0.0.0.0/", "an unspecified address (0.0.0.0)"],
    ["http://0/", "an unspecified address (0.0.0.0)"],
    ["http://[::]/", "an unspecified address (::)"],
    ["http://10.0.0.1/", "a private address (10.0.0.1)"],
    ["http://172.16.5.4/", "a private address (172.16.5.4)"],
    ["http://192.168.0.1/", "a private address (192.168.0.1)"],
    ["http://3232235521/", "a private address (192.168.0.1)"],
    ["http://100.64.0.1/", "a carrier-grade NAT address (100.64.0.1)"],
    ["http://169.254.169.254/latest/meta-data/", "a cloud metadata address (169.254.169.254)"],
    ["http://0xa9fea9fe/", "a cloud metadata address (169.254.169.254)"],
    ["http://169.254.0.1/", "a link-local address (169.254.0.1)"],
    ["http://224.0.0.1/", "a multicast address (224.0.0.1)"],
    ["http://240.0.0.1/", "a reserved address (240.0.0.1)"],
    ["http://255.255.255.255/", "a broadcast address (255.255.255.255)"],
    ["http://192.0.2.1/", "a documentation address (192.0.2.1)"],
    ["http://198.18.0.1/", "a benchmarking address (198.18.0.1)"],
    ["http://[::ffff:127.0.0.1]/", "an IPv4-mapped IPv6 address for 127.0.0.1 (::ffff:7f00:1)"],
    ["http://[::ffff:7f00:1]/", "an IPv4-mapped IPv6 address for 127.0.0.1 (::ffff:7f00:1)"],
    ["http://[::ffff:169.254.169.254]/", "an IPv4-mapped IPv6 address for 169.254.169.254 (::ffff:a9fe:a9fe)"],
    ["http://[::127.0.0.1]/", "an IPv4-compatible IPv6 address for 127.0.0.1 (::7f00:1)"],
    ["http://[64:ff9b::10.0.0.1]/", "a NAT64 address for 10.0.0.1, a private address (64:ff9b::a00:1)"],
    ["http://[2002:7f00:1::]/", "a 6to4 address for 127.0.0.1, a loopback address (2002:7f00:1::)"],
    ["http://[2001::1]/", "a Teredo address (2001::1)"],
    ["http://[fd00::1]/", "a private address (unique local) (fd00::1)"],
    ["http://[fe80::1]/", "a link-local address (fe80::1)"],
    ["http://[fec0::1]/", "a site-local address (fec0::1)"],
    ["http://[ff02::1]/", "a multicast address (ff02::1)"],
    ["http://[2001:db8::1]/", "a documentation address (2001:db8::1)"],
  ])("%s is blocked", (url, description) => {
    expect(refusal(url)).toEqual({ kind: "blocked", reason: `host is ${description}` });
  });
});

describe("checkUrl accepts public URLs (checked only, never fetched)", () => {
  it.each([
    ["https://example.com/page?q=1#top", "example.com"],
    ["http://EXAMPLE.com./", "example.com."],
    ["http://8.8.8.8/", "8.8.8.8"],
    ["http://134744072/", "8.8.8.8"],
    ["https://[2606:4700::1111]/", "[2606:4700::1111]"],
    ["https://bücher.example/", "xn--bcher-kva.example"],
    ["http://localhost.example.com/", "localhost.example.com"],
  ])("%s passes", (url, hostname) => {
    const result = checkUrl(url);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.hostname).toBe(hostname);
  });
});

describe("FETCH_ALLOW_PRIVATE opens exactly host:port and nothing else", () => {
  it("an allow-listed host:port skips the address policy", () => {
    expect(checkUrl("http://127.0.0.1:8080/x", ["127.0.0.1:8080"]).ok).toBe(true);
    expect(checkUrl("http://[::1]:7000/", ["[::1]:7000"]).ok).toBe(true);
    expect(checkUrl("http://localhost:9000/", ["localhost:9000"]).ok).toBe(true);
  });

  it("another port on the same host stays blocked", () => {
    expect(refusal("http://127.0.0.1:8081/", ["127.0.0.1:8080"]).kind).toBe("blocked");
    expect(refusal("http://127.0.0.1/", ["127.0.0.1:8080"]).kind).toBe("blocked");
    expect(refusal("http://localhost:9001/", ["localhost:9000"]).kind).toBe("blocked");
  });

  it("default ports count: 127.0.0.1:80 allows http://127.0.0.1/ but not https://127.0.0.1/", () => {
    expect(checkUrl("http://127.0.0.1/", ["127.0.0.1:80"]).ok).toBe(true);
    expect(refusal("https://127.0.0.1/", ["127.0.0.1:80"]).kind).toBe("blocked");
    expect(checkUrl("https://127.0.0.1/", ["127.0.0.1:443"]).ok).toBe(true);
  });

  it("matches the host as written or its IP literal, not another spelling of a different host", () => {
    expect(checkUrl("http://2130706433:8080/", ["127.0.0.1:8080"]).ok).toBe(true);
    expect(checkUrl("http://[0:0::1]:7000/", ["[::1]:7000"]).ok).toBe(true);
    expect(refusal("http://127.0.0.2:8080/", ["127.0.0.1:8080"]).kind).toBe("blocked");
    expect(refusal("http://localhost:8080/", ["127.0.0.1:8080"]).kind).toBe("blocked");
    expect(refusal("http://[::1]:8080/", ["127.0.0.1:8080"]).kind).toBe("blocked");
  });

  it("ignores entries without a port or with garbage", () => {
    for (const entry of [
      "127.0.0.1",
      "127.0.0.1:",
      "127.0.0.1:http",
      "*:8080",
      "127.0.0.1:0",
      "127.0.0.1:99999",
      "::1:7000",
    ]) {
      expect(matchesAllowList("127.0.0.1", 8080, [entry])).toBe(false);
    }
    expect(matchesAllowList("fake-web", 8080, [" Fake-Web:8080 "])).toBe(true);
  });

  it("still refuses non-http schemes on an allow-listed host", () => {
    expect(refusal("ftp://127.0.0.1:8080/", ["127.0.0.1:8080"]).kind).toBe("blocked");
  });
});
