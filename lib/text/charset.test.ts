import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { ENCODED_SAMPLES, encodedPage, RASHOMON, undeclaredPage } from "@/tests/support/encoded-pages";
import { decodeBytes, headerCharset, metaCharset, resolveCharset } from "./charset";

const utf8 = (text: string) => Buffer.from(text, "utf8");

describe("the fixtures are what they claim (checked with Node's ICU decoders)", () => {
  it.each(ENCODED_SAMPLES)("%s", (_name, label, codec, text) => {
    const bytes = encodedPage(codec, "T", text);
    expect(new TextDecoder(label, { fatal: true }).decode(bytes)).toBe(undeclaredPage("T", text));
    expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toThrow();
  });
});

describe("charset order: BOM, Content-Type, <meta>, detection, UTF-8", () => {
  it.each(ENCODED_SAMPLES)("an undeclared page is read by detection: %s", (_name, _label, codec, text) => {
    const decoded = decodeBytes(encodedPage(codec, "T", text), { html: true });
    expect(decoded.source).toBe("detected");
    expect(decoded.text).toContain(text);
    expect(decoded.text).not.toContain("\ufffd");
  });

  it("a BOM wins over the Content-Type header and the meta tag", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('<meta charset="shift_jis"><p>羅生門</p>')]);
    expect(decodeBytes(bytes, { contentType: "text/html; charset=euc-jp", html: true })).toEqual({
      text: '<meta charset="shift_jis"><p>羅生門</p>',
      encoding: "utf-8",
      source: "bom",
    });
  });

  it("a UTF-16 BOM decodes UTF-16 in either byte order, without the BOM", () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("日本語", "utf16le")]);
    const be = Buffer.from(le);
    be.swap16();
    expect(decodeBytes(le)).toEqual({ text: "日本語", encoding: "utf-16le", source: "bom" });
    expect(decodeBytes(be)).toEqual({ text: "日本語", encoding: "utf-16be", source: "bom" });
  });

  it("the Content-Type charset wins over the meta tag and detection", () => {
    const bytes = Buffer.concat([utf8('<meta charset="euc-jp">'), iconv.encode(RASHOMON, "cp932")]);
    const decoded = decodeBytes(bytes, { contentType: 'text/html; charset="Shift_JIS"', html: true });
    expect(decoded).toMatchObject({ encoding: "cp932", source: "header" });
    expect(decoded.text).toContain(RASHOMON);
  });

  it("the meta charset is read when the header names none, for HTML only", () => {
    const bytes = Buffer.concat([utf8('<head><meta charset="euc-jp"></head>'), iconv.encode(RASHOMON, "euc-jp")]);
    expect(decodeBytes(bytes, { contentType: "text/html", html: true })).toMatchObject({
      encoding: "euc-jp",
      source: "meta",
    });
    expect(decodeBytes(bytes, { contentType: "text/plain" }).source).toBe("detected");
  });

  it("reads the http-equiv form of the meta charset and ignores a commented-out one", () => {
    const head =
      '<!-- <meta charset="koi8-r"> --><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">';
    expect(metaCharset(utf8(head))).toBe("Shift_JIS");
  });

  it("a meta tag cannot declare UTF-16 (its own bytes are ASCII): that reads as UTF-8", () => {
    expect(decodeBytes(utf8('<meta charset="utf-16"><p>é</p>'), { html: true })).toMatchObject({
      text: '<meta charset="utf-16"><p>é</p>',
      source: "meta",
    });
  });

  it("a lying header is believed, as browsers do: UTF-8 bytes served as ISO-8859-1 read as windows-1252", () => {
    // Browsers trust the transport layer over the bytes; only a BOM overrides it.
    const decoded = decodeBytes(utf8("café – 日本"), { contentType: "text/html; charset=ISO-8859-1", html: true });
    expect(decoded).toEqual({ text: "cafÃ© â€“ æ—¥æœ¬", encoding: "windows-1252", source: "header" });
  });

  it("an unknown charset label is ignored and the next rule applies", () => {
    const bytes = encodedPage("cp932", "T", RASHOMON);
    const decoded = decodeBytes(bytes, { contentType: "text/html; charset=x-no-such-charset", html: true });
    expect(decoded.source).toBe("detected");
    expect(decoded.text).toContain(RASHOMON);
  });

  it("undeclared UTF-8 is recognised before statistical detection, even cut mid-character by the sample", () => {
    // 21846 × 3 bytes puts a character across the 64 KiB detection sample's end.
    const text = `é${"日".repeat(21_846)}`;
    expect(decodeBytes(utf8(text))).toEqual({ text, encoding: "utf-8", source: "detected" });
  });

  it("undeclared ASCII and empty input are UTF-8 by default", () => {
    expect(decodeBytes(utf8("<p>plain</p>"), { html: true })).toEqual({
      text: "<p>plain</p>",
      encoding: "utf-8",
      source: "default",
    });
    expect(decodeBytes(new Uint8Array(0))).toEqual({ text: "", encoding: "utf-8", source: "default" });
  });

  it("decodes a view into a larger buffer by its own bytes only", () => {
    const whole = utf8("xx日本yy");
    expect(decodeBytes(whole.subarray(2, 8)).text).toBe("日本");
  });
});

describe("charset labels mean what they mean on the web", () => {
  it.each([
    ["ISO-8859-1", "windows-1252"],
    ["us-ascii", "windows-1252"],
    ["Shift_JIS", "cp932"],
    ["x-sjis", "cp932"],
    ["EUC-KR", "cp949"],
    ["GB2312", "gb18030"],
    ["Big5", "big5hkscs"],
    ['"utf-8"', "utf-8"],
    ["windows-1255", "windows-1255"],
    ["x-unknown", null],
    ["", null],
  ])("%s → %s", (label, codec) => {
    expect(resolveCharset(label)).toBe(codec);
  });

  it("Shift_JIS decodes Microsoft's extensions (NEC specials like ①), as browsers do", () => {
    expect(decodeBytes(Buffer.from([0x87, 0x40]), { contentType: "text/plain; charset=Shift_JIS" }).text).toBe("①");
  });

  it("finds the charset parameter of a Content-Type, quoted or not", () => {
    expect(headerCharset("text/html; charset=UTF-8")).toBe("UTF-8");
    expect(headerCharset('text/html;charset="euc-jp"; foo=bar')).toBe("euc-jp");
    expect(headerCharset("text/html")).toBeNull();
    expect(headerCharset(null)).toBeNull();
  });
});
