/**
 * The address half of the SSRF guard: parse an IP literal the way a WHATWG URL parser does,
 * and decide whether an address is global unicast — the only kind a fetch may connect to.
 * Pure functions; the URL rules are in `url-policy.ts`, the fetcher in `fetch-public.ts`.
 */

export interface IpAddress {
  /** Canonical text: dotted quad for IPv4, RFC 5952 (lowercase, compressed) for IPv6. */
  address: string;
  family: 4 | 6;
}

/** Why an address may not be fetched; `description` reads after "is": "a private address". */
export type AddressVerdict = { global: true } | { global: false; description: string };

/**
 * Parses an IP literal as a URL host would: IPv4 in any WHATWG notation ("2130706433", "0x7f.1",
 * "017700000001", "127.1", a trailing dot) and IPv6 with or without brackets. Returns null for
 * anything else, including IPv6 zone ids ("fe80::1%eth0"), so callers fail closed.
 */
export function parseIpLiteral(host: string): IpAddress | null {
  if (host.length === 0 || host.length > 255) return null;
  if (host.startsWith("[") || host.endsWith("]")) {
    if (!(host.startsWith("[") && host.endsWith("]"))) return null;
    const bytes = parseIPv6(host.slice(1, -1));
    return bytes ? { address: formatIPv6(bytes), family: 6 } : null;
  }
  if (host.includes(":")) {
    const bytes = parseIPv6(host);
    return bytes ? { address: formatIPv6(bytes), family: 6 } : null;
  }
  const value = parseIPv4(host);
  return value === null ? null : { address: formatIPv4(value), family: 4 };
}

/** The address policy: true only for global unicast addresses. Anything unparseable is not global. */
export function isGlobalUnicast(address: string): boolean {
  return classifyAddress(address).global;
}

/** Like `isGlobalUnicast`, with the reason an address is refused. */
export function classifyAddress(address: string): AddressVerdict {
  const ip = parseIpLiteral(address);
  if (!ip) return { global: false, description: "not an IP address" };
  if (ip.family === 4) return classifyIPv4(ipv4Value(ip.address));
  return classifyIPv6(parseIPv6(ip.address)!);
}

// ---------------------------------------------------------------------------------------------
// IPv4

/** IANA special-purpose ranges plus cloud metadata endpoints; the first match wins, so specific before broad. */
const IPV4_RANGES: [prefix: string, bits: number, description: string][] = [
  ["0.0.0.0", 32, "an unspecified address"],
  ["0.0.0.0", 8, 'a reserved address ("this network")'],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a carrier-grade NAT address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.169.254", 32, "a cloud metadata address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "a reserved address (IETF protocol assignments)"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a reserved address (6to4 relay anycast)"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  // Azure's WireServer: a public-looking address that only answers from inside the VM.
  ["168.63.129.16", 32, "a cloud metadata address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["255.255.255.255", 32, "a broadcast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

const IPV4_TABLE = IPV4_RANGES.map(([prefix, bits, description]) => ({
  network: ipv4Value(prefix),
  mask: bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0,
  description,
}));

function classifyIPv4(value: number): AddressVerdict {
  for (const range of IPV4_TABLE) {
    if ((value & range.mask) >>> 0 === range.network) return { global: false, description: range.description };
  }
  return { global: true };
}

/** WHATWG "IPv4 parser": 1–4 parts, each decimal, 0x-hex or 0-octal; the last part fills the remaining bytes. */
function parseIPv4(input: string): number | null {
  const parts = input.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: bigint[] = [];
  for (const part of parts) {
    const n = parseIPv4Number(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255n)) return null;
  if (last >= 256n ** BigInt(5 - parts.length)) return null;
  let value = last;
  numbers.forEach((n, index) => {
    value += n * 256n ** BigInt(3 - index);
  });
  return Number(value);
}

function parseIPv4Number(part: string): bigint | null {
  if (part === "") return null;
  let digits = part;
  let pattern = /^[0-9]+$/;
  let prefix = "";
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    pattern = /^[0-9a-f]+$/i;
    prefix = "0x";
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    pattern = /^[0-7]+$/;
    prefix = "0o";
  }
  if (digits === "") return 0n;
  if (!pattern.test(digits)) return null;
  return BigInt(prefix + digits);
}

function ipv4Value(dotted: string): number {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split(".").map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

// ---------------------------------------------------------------------------------------------
// IPv6

function classifyIPv6(b: Uint8Array): AddressVerdict {
  const refuse = (description: string): AddressVerdict => ({ global: false, description });
  const word = (i: number) => (b[i * 2]! << 8) | b[i * 2 + 1]!;
  const zeroUpTo = (end: number) => b.subarray(0, end).every((byte) => byte === 0);
  const embedded = (offset: number) =>
    ((b[offset]! << 24) | (b[offset + 1]! << 16) | (b[offset + 2]! << 8) | b[offset + 3]!) >>> 0;

  if (zeroUpTo(16)) return refuse("an unspecified address");
  if (zeroUpTo(15) && b[15] === 1) return refuse("a loopback address");
  if (zeroUpTo(10) && word(5) === 0xffff) return refuse(`an IPv4-mapped IPv6 address for ${formatIPv4(embedded(12))}`);
  if (zeroUpTo(12)) return refuse(`an IPv4-compatible IPv6 address for ${formatIPv4(embedded(12))}`);
  if (word(0) === 0x64 && word(1) === 0xff9b && [2, 3, 4, 5].every((i) => word(i) === 0)) {
    // NAT64 well-known prefix: fine when it reaches a public IPv4 host, refused when it wraps an internal one.
    const inner = classifyIPv4(embedded(12));
    return inner.global ? inner : refuse(`a NAT64 address for ${formatIPv4(embedded(12))}, ${inner.description}`);
  }
  if (word(0) === 0x64 && word(1) === 0xff9b && word(2) === 1) return refuse("a local-use NAT64 address");
  if (word(0) === 0x100 && [1, 2, 3].every((i) => word(i) === 0)) return refuse("a discard-only address");
  if (word(0) === 0xfd00 && word(1) === 0x0ec2 && [2, 3, 4, 5, 6].every((i) => word(i) === 0) && word(7) === 0x254) {
    return refuse("a cloud metadata address");
  }
  if ((b[0]! & 0xfe) === 0xfc) return refuse("a private address (unique local)");
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return refuse("a link-local address");
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return refuse("a site-local address");
  if (b[0] === 0xff) return refuse("a multicast address");
  if (word(0) === 0x2001 && word(1) === 0) return refuse("a Teredo address");
  if (word(0) === 0x2001 && word(1) === 0xdb8) return refuse("a documentation address");
  if (word(0) === 0x2001 && word(1) === 2 && word(2) === 0) return refuse("a benchmarking address");
  if (word(0) === 0x2001 && word(1) < 0x200) return refuse("a reserved address (IETF protocol assignments)");
  if (word(0) === 0x2002) {
    const inner = classifyIPv4(embedded(2));
    return inner.global ? inner : refuse(`a 6to4 address for ${formatIPv4(embedded(2))}, ${inner.description}`);
  }
  if (word(0) === 0x3fff && word(1) < 0x1000) return refuse("a documentation address");
  // Only 2000::/3 is allocated for global unicast; everything else is reserved by the IETF.
  if ((b[0]! & 0xe0) !== 0x20) return refuse("a reserved address");
  return { global: true };
}

function parseIPv6(input: string): Uint8Array | null {
  if (!/^[0-9a-f:.]+$/i.test(input)) return null;
  const gap = input.indexOf("::");
  if (gap !== input.lastIndexOf("::")) return null;
  const head = gap === -1 ? input : input.slice(0, gap);
  const tail = gap === -1 ? "" : input.slice(gap + 2);
  const headWords = parseWords(head, gap === -1);
  const tailWords = parseWords(tail, true);
  if (!headWords || !tailWords) return null;
  const count = headWords.length + tailWords.length;
  if (gap === -1 ? count !== 8 : count > 7) return null;
  const words = [...headWords, ...new Array<number>(8 - count).fill(0), ...tailWords];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 255;
  });
  return bytes;
}

/** Colon-separated hex words; when `allowIPv4Tail`, the last piece may be a strict dotted quad (two words). */
function parseWords(text: string, allowIPv4Tail: boolean): number[] | null {
  if (text === "") return [];
  const pieces = text.split(":");
  const words: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (piece.includes(".")) {
      if (!allowIPv4Tail || index !== pieces.length - 1) return null;
      const quad = piece.split(".");
      if (quad.length !== 4 || !quad.every((q) => /^(0|[1-9][0-9]{0,2})$/.test(q) && Number(q) <= 255)) return null;
      const [a, b, c, d] = quad.map(Number) as [number, number, number, number];
      words.push((a << 8) | b, (c << 8) | d);
    } else {
      if (!/^[0-9a-f]{1,4}$/i.test(piece)) return null;
      words.push(Number.parseInt(piece, 16));
    }
  }
  return words;
}

/** RFC 5952: lowercase, no leading zeros, the longest run (≥ 2) of zero words as "::". */
function formatIPv6(bytes: Uint8Array): string {
  const words = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && words[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart === -1) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
