import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/env-config";
import { clientAddress, clientKey, parseAddress, UNKNOWN_CLIENT } from "./client-address";
import { PEER_HEADER } from "./peer-stamp.mjs";

// Addresses are header values only: nothing here opens a connection.
const config = parseConfig({});
const request = (headers: Record<string, string>) => new Request("http://127.0.0.1/api/auth/login", { headers });

describe("client address", () => {
  it("is the TCP peer when the peer is not a trusted proxy, whatever X-Forwarded-For and X-Real-IP say", () => {
    const forged = request({ [PEER_HEADER]: "203.0.113.5", "x-forwarded-for": "10.0.0.1", "x-real-ip": "10.0.0.2" });
    expect(clientAddress(forged, config)).toBe("203.0.113.5");
  });

  it("behind a trusted proxy, is the right-most X-Forwarded-For address that is not a trusted proxy", () => {
    const viaNginx = request({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "10.9.9.9, 198.51.100.7, 127.0.0.2" });
    expect(clientAddress(viaNginx, config)).toBe("198.51.100.7");
  });

  it("behind a trusted proxy without X-Forwarded-For, is X-Real-IP", () => {
    expect(clientAddress(request({ [PEER_HEADER]: "::1", "x-real-ip": "198.51.100.8" }), config)).toBe("198.51.100.8");
  });

  it("stops at a malformed X-Forwarded-For entry: the last trusted hop stands for the client", () => {
    const garbled = request({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "198.51.100.9, not-an-ip" });
    expect(clientAddress(garbled, config)).toBe("127.0.0.1");
  });

  it("trusts only the configured proxies: with TRUSTED_PROXIES=none even loopback's headers are ignored", () => {
    const none = parseConfig({ TRUSTED_PROXIES: "none" });
    const viaLoopback = request({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "198.51.100.7" });
    expect(clientAddress(viaLoopback, none)).toBe("127.0.0.1");
    const cdn = parseConfig({ TRUSTED_PROXIES: "127.0.0.1, 192.0.2.0/24" });
    const viaCdn = request({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "198.51.100.7, 192.0.2.44" });
    expect(clientAddress(viaCdn, cdn)).toBe("198.51.100.7");
  });

  it("is unknown without the server's peer stamp: all such requests share one key", () => {
    const unstamped = request({ "x-forwarded-for": "198.51.100.7", "x-real-ip": "198.51.100.7" });
    expect(clientAddress(unstamped, config)).toBeNull();
    expect(clientKey(unstamped, config)).toBe(UNKNOWN_CLIENT);
  });

  it("keys IPv4 by address, IPv6 by its /64, and IPv4-mapped IPv6 as IPv4", () => {
    const key = (peer: string) => clientKey(request({ [PEER_HEADER]: peer }), config);
    expect(key("198.51.100.7")).toBe("198.51.100.7");
    expect(key("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(key("2001:db8:a:b:1:2:3:4")).toBe("2001:db8:a:b::/64");
    expect(key("2001:DB8:a:b::9")).toBe("2001:db8:a:b::/64");
    expect(key("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(key("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(key("64:ff9b::198.51.100.7")).toBe("64:ff9b:0:0::/64");
  });

  it("reads addresses the way proxies write them, and nothing else", () => {
    expect(parseAddress(" 198.51.100.7 ")).toBe("198.51.100.7");
    expect(parseAddress("198.51.100.7:5678")).toBe("198.51.100.7");
    expect(parseAddress("[2001:db8::1]:443")).toBe("2001:db8::1");
    for (const bad of ["", "unknown", "198.51.100", "example.org", "1.2.3.4, 5.6.7.8", "[::1"]) {
      expect(parseAddress(bad)).toBeNull();
    }
  });
});

describe("TRUSTED_PROXIES", () => {
  it("defaults to loopback, the nginx of docs/deploy.md", () => {
    expect(parseConfig({}).TRUSTED_PROXIES).toEqual(["127.0.0.0/8", "::1"]);
  });

  it("takes addresses and CIDR ranges, or none, and names itself when invalid", () => {
    expect(parseConfig({ TRUSTED_PROXIES: "10.0.0.1, fd00::/8" }).TRUSTED_PROXIES).toEqual(["10.0.0.1", "fd00::/8"]);
    expect(parseConfig({ TRUSTED_PROXIES: "none" }).TRUSTED_PROXIES).toEqual([]);
    for (const bad of ["proxy.example.org", "10.0.0.0/33", "::/129", "10.0.0.1/8/8"]) {
      expect(() => parseConfig({ TRUSTED_PROXIES: bad })).toThrow(/^Invalid configuration: TRUSTED_PROXIES /);
    }
  });
});
