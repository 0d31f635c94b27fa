import iconv from "iconv-lite";
import { detect } from "jschardet";

/**
 * Bytes → text, in the order browsers follow (the WHATWG encoding sniffing algorithm): a BOM, then
 * the Content-Type charset, then for HTML a `<meta charset>` near the start, then detection from the
 * bytes, then UTF-8. A declared charset is believed even when the bytes disagree (a page served as
 * ISO-8859-1 whose bytes are UTF-8 reads as a browser shows it); only a BOM overrides a header.
 */

export type CharsetSource = "bom" | "header" | "meta" | "detected" | "default";

export interface DecodedText {
  text: string;
  /** The decoder used, as iconv-lite names it ("utf-8", "cp932", "windows-1252"…). */
  encoding: string;
  source: CharsetSource;
}

export interface DecodeHints {
  /** The Content-Type header, whose `charset` parameter is believed when it names a known encoding. */
  contentType?: string | null;
  /** Look for `<meta charset>` / `http-equiv` in the first bytes. */
  html?: boolean;
}

/** How far into a page `<meta charset>` is looked for (the spec's 1024 bytes, with room for long heads). */
const META_PRESCAN_BYTES = 4096;
/** How many bytes detection reads: enough for the statistics, bounded for a 10 MB page. */
const DETECTION_SAMPLE_BYTES = 64 * 1024;

/**
 * Labels the web means differently from their literal name (WHATWG "Encoding", the labels table):
 * Latin-1 and ASCII are windows-1252, Shift_JIS is Microsoft's CP932, EUC-KR is CP949, GBK and
 * GB2312 decode as GB18030, Big5 as Big5-HKSCS. Other labels go to iconv-lite as they are.
 */
const WEB_LABELS: Record<string, string> = {
  "iso-8859-1": "windows-1252",
  "iso8859-1": "windows-1252",
  iso_8859_1: "windows-1252",
  "iso_8859-1": "windows-1252",
  latin1: "windows-1252",
  l1: "windows-1252",
  ascii: "windows-1252",
  "us-ascii": "windows-1252",
  "x-cp1252": "windows-1252",
  cp1252: "windows-1252",
  shift_jis: "cp932",
  "shift-jis": "cp932",
  sjis: "cp932",
  "x-sjis": "cp932",
  ms_kanji: "cp932",
  ms932: "cp932",
  "windows-31j": "cp932",
  csshiftjis: "cp932",
  "euc-kr": "cp949",
  ks_c_5601: "cp949",
  "ks_c_5601-1987": "cp949",
  "windows-949": "cp949",
  korean: "cp949",
  gb2312: "gb18030",
  gbk: "gb18030",
  "x-gbk": "gb18030",
  cp936: "gb18030",
  chinese: "gb18030",
  big5: "big5hkscs",
  "big5-hkscs": "big5hkscs",
  "x-x-big5": "big5hkscs",
  "iso-8859-9": "windows-1254",
  latin5: "windows-1254",
  "iso-8859-11": "windows-874",
  "tis-620": "windows-874",
  "utf-16": "utf-16le",
  utf8: "utf-8",
  "unicode-1-1-utf-8": "utf-8",
};

/** The iconv-lite codec for a charset label, or null for an unknown one (which is then ignored). */
export function resolveCharset(label: string | null | undefined): string | null {
  if (!label) return null;
  const name = label
    .trim()
    .replace(/^["']|["']$/g, "")
    .toLowerCase();
  if (!name) return null;
  const codec = WEB_LABELS[name] ?? name;
  return iconv.encodingExists(codec) ? codec : null;
}

function bomCharset(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

/** The `charset` parameter of a Content-Type header, quoted or not. */
export function headerCharset(contentType: string | null | undefined): string | null {
  return /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? "")?.[2] ?? null;
}

/**
 * `<meta charset="…">` or `<meta http-equiv="Content-Type" content="…; charset=…">` near the start,
 * outside comments. A page cannot declare itself UTF-16 this way (its meta is ASCII): that reads as UTF-8.
 */
export function metaCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, META_PRESCAN_BYTES))
    .toString("latin1")
    .replace(/<!--[\s\S]*?(-->|$)/g, "");
  for (const [tag] of head.matchAll(/<meta\b[^>]*>/gi)) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag)?.[1];
    if (!direct) continue;
    return /^utf-16/i.test(direct) ? "utf-8" : direct;
  }
  return null;
}

/** True when the sample holds non-ASCII bytes that are well-formed UTF-8 (a sequence cut at its end allowed). */
function looksUtf8(sample: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

function detectCharset(bytes: Uint8Array): { codec: string; source: CharsetSource } {
  const sample = bytes.subarray(0, DETECTION_SAMPLE_BYTES);
  if (sample.every((byte) => byte < 0x80)) return { codec: "utf-8", source: "default" };
  if (looksUtf8(sample)) return { codec: "utf-8", source: "detected" };
  const guess = resolveCharset(detect(sample).encoding);
  return guess ? { codec: guess, source: "detected" } : { codec: "utf-8", source: "default" };
}

function chooseCharset(bytes: Uint8Array, hints: DecodeHints): { codec: string; source: CharsetSource } {
  const bom = bomCharset(bytes);
  if (bom) return { codec: bom, source: "bom" };
  const header = resolveCharset(headerCharset(hints.contentType));
  if (header) return { codec: header, source: "header" };
  const meta = hints.html ? resolveCharset(metaCharset(bytes)) : null;
  if (meta) return { codec: meta, source: "meta" };
  return detectCharset(bytes);
}

export function decodeBytes(bytes: Uint8Array, hints: DecodeHints = {}): DecodedText {
  const { codec, source } = chooseCharset(bytes, hints);
  // iconv-lite drops a BOM matching the codec; bytes the codec cannot map become U+FFFD, as in a browser.
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), codec);
  return { text, encoding: codec, source };
}
