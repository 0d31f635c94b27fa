import "server-only";
import { BlockList, isIP } from "node:net";
import { type Config, getConfig } from "@/lib/env-config";
import { PEER_HEADER } from "./peer-stamp.mjs";

/**
 * Who is on the other end of a request, for per-address limits (docs/security.md). The TCP peer
 * comes from the server's own stamp (peer-stamp.mjs); X-Forwarded-For and X-Real-IP are believed
 * only when that peer is a trusted proxy (TRUSTED_PROXIES), and then only up to the right-most
 * address that is not one: everything left of it was written by the client and proves nothing.
 */

/** The key of requests whose peer the server could not learn: they all share it (fails closed). */
export const UNKNOWN_CLIENT = "unknown";

/** The bare IP of an address as servers and proxies write it, or null when it is not one. */
export function parseAddress(value: string | null | undefined): string | null {
  let text = value?.trim() ?? "";
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1] ?? "";
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  if (isIP(text) === 0) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  return mapped?.[1] ?? text.toLowerCase();
}

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

const proxyLists = new WeakMap<readonly string[], BlockList>();

function trustedProxies(ranges: readonly string[]): BlockList {
  let list = proxyLists.get(ranges);
  if (!list) {
    list = new BlockList();
    for (const range of ranges) {
      const [address = "", prefix] = range.split("/");
      const bare = parseAddress(address);
      if (!bare) continue;
      if (prefix === undefined) list.addAddress(bare, family(bare));
      else list.addSubnet(bare, Number(prefix), family(bare));
    }
    proxyLists.set(ranges, list);
  }
  return list;
}

/** The client's IP address, or null when the request carries no peer stamp. */
export function clientAddress(request: Request, config: Pick<Config, "TRUSTED_PROXIES"> = getConfig()): string | null {
  const peer = parseAddress(request.headers.get(PEER_HEADER));
  if (!peer) return null;
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const trusted = (address: string) => proxies.check(address, family(address));
  const forwarded = request.headers.get("x-forwarded-for");
  const hops = forwarded !== null ? forwarded.split(",") : [request.headers.get("x-real-ip") ?? ""];
  let client = peer;
  for (let i = hops.length - 1; i >= 0 && trusted(client); i--) {
    const hop = parseAddress(hops[i]);
    // A malformed entry ends what can be believed: the last trusted hop stands for the client.
    if (!hop) break;
    client = hop;
  }
  return client;
}

/** An IPv6 address's /64 network, "2001:db8:0:1::/64": one subscriber usually holds a whole /64. */
function ipv6Network(address: string): string {
  let text = address.split("%")[0] ?? "";
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/** The rate-limit key for a request: its client's IPv4 address or IPv6 /64, or UNKNOWN_CLIENT. */
export function clientKey(request: Request, config: Pick<Config, "TRUSTED_PROXIES"> = getConfig()): string {
  const address = clientAddress(request, config);
  if (!address) {
    warnUnstamped();
    return UNKNOWN_CLIENT;
  }
  return isIP(address) === 6 ? ipv6Network(address) : address;
}

let warned = false;
function warnUnstamped(): void {
  if (warned || process.env.NODE_ENV !== "production") return;
  warned = true;
  console.warn(
    "[auth] a request came without its peer address stamp (it arrived while the server was starting, or " +
      "lib/auth/peer-stamp.mjs is not installed): such requests share one sign-in limit.",
  );
}
