import { createCipheriv, createHash } from "node:crypto";

/**
 * A tiny PDF writer for tests: raw PDF syntax with a correct cross-reference table, so tests build
 * exactly the document they need (text pages, image-only pages, encryption, damage) in memory.
 */

export type PdfObject = string | Uint8Array;

export const latin1 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, "latin1"));
const hex = (bytes: Uint8Array): string => `<${Buffer.from(bytes).toString("hex")}>`;

export function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

/** A stream object: dictionary entries (without /Length) plus raw data. */
export function stream(data: Uint8Array, dictEntries = ""): Uint8Array {
  return concat([latin1(`<< /Length ${data.length}${dictEntries} >>\nstream\n`), data, latin1("\nendstream")]);
}

/** Writes objects 1..n (object i+1 is `objects[i]`), a classic xref table and the trailer. */
export function writePdf(objects: PdfObject[], trailerEntries: string): Uint8Array {
  const parts: Uint8Array[] = [latin1("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const body = typeof object === "string" ? latin1(object) : object;
    const chunk = concat([latin1(`${index + 1} 0 obj\n`), body, latin1("\nendobj\n")]);
    parts.push(chunk);
    length += chunk.length;
  });
  const entries = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  parts.push(
    latin1(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}` +
        `trailer\n<< /Size ${objects.length + 1} ${trailerEntries} >>\nstartxref\n${length}\n%%EOF\n`,
    ),
  );
  return concat(parts);
}

/** A PDF literal string for WinAnsi text: parentheses and backslashes escaped, Latin-1 only. */
function pdfString(text: string): string {
  for (const char of text) {
    if (char.charCodeAt(0) > 0xff) throw new Error(`makeTextPdf: ${JSON.stringify(char)} is not WinAnsi`);
  }
  return `(${text.replace(/[\\()]/g, (char) => `\\${char}`).replace(/\r/g, "\\r")})`;
}

function textContent(lines: string[]): string {
  if (lines.length === 0) return "";
  const shown = lines.map((line) => `${pdfString(line)} Tj T*`).join("\n");
  return `BT\n/F1 11 Tf\n13 TL\n50 800 Td\n${shown}\nET`;
}

export interface TextPdfOptions {
  /**
   * 0-based pages whose content stream is broken (declared FlateDecode, holding garbage): pdf.js
   * fails on that page while every other page stays readable.
   */
  brokenPages?: number[];
}

/**
 * A PDF with one page per entry of `pages`, each line drawn with base-14 Helvetica (WinAnsi, so
 * Latin-1 text only). An empty line list gives an empty page.
 */
export function makeTextPdf(pages: string[][], options: TextPdfOptions = {}): Uint8Array {
  const broken = new Set(options.brokenPages ?? []);
  // 1 catalog, 2 page tree, 3 font, then per page: page object, content stream.
  const objects: PdfObject[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  ];
  const kids: string[] = [];
  pages.forEach((lines, index) => {
    const pageNumber = objects.length + 1;
    kids.push(`${pageNumber} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageNumber + 1} 0 R >>`,
    );
    objects.push(
      broken.has(index)
        ? stream(latin1("x\x9c\xff\xfe this is not deflate data"), " /Filter /FlateDecode")
        : stream(latin1(textContent(lines))),
    );
  });
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages.length} >>`;
  return writePdf(objects, "/Root 1 0 R");
}

/** Pages that draw only a filled rectangle or an inline image: no text layer, like a scan. */
export function makeScannedPdf(pageCount: number): Uint8Array {
  const objects: PdfObject[] = ["<< /Type /Catalog /Pages 2 0 R >>", ""];
  const kids: string[] = [];
  for (let index = 0; index < pageCount; index++) {
    const pageNumber = objects.length + 1;
    kids.push(`${pageNumber} 0 R`);
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${pageNumber + 1} 0 R >>`);
    const drawing =
      index % 2 === 0
        ? latin1("0.5 0.5 0.5 rg 50 50 495 742 re f")
        : concat([
            latin1("q 495 0 0 742 50 50 cm BI /W 2 /H 2 /CS /G /BPC 8 ID "),
            Uint8Array.of(0, 64, 128, 255),
            latin1("\nEI Q"),
          ]);
    objects.push(stream(drawing));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pageCount} >>`;
  return writePdf(objects, "/Root 1 0 R");
}

// Standard security handler, revision 4 with AES-128 (ISO 32000-1, section 7.6.3, algorithms 2, 3 and 5).
const PASSWORD_PAD = Uint8Array.from(
  Buffer.from("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a", "hex"),
);

function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = Array.from({ length: 256 }, (_, i) => i);
  let j = 0;
  for (let i = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = new Uint8Array(data.length);
  let i = 0;
  j = 0;
  for (let k = 0; k < data.length; k++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

const md5 = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(createHash("md5").update(concat(parts)).digest());
const padPassword = (password: string): Uint8Array => concat([latin1(password), PASSWORD_PAD]).slice(0, 32);
const xorKey = (key: Uint8Array, round: number): Uint8Array => key.map((byte) => byte ^ round);

function md5Rounds(seed: Uint8Array): Uint8Array {
  let hash = md5(seed);
  for (let round = 0; round < 50; round++) hash = md5(hash.slice(0, 16));
  return hash.slice(0, 16);
}

function rc4Rounds(key: Uint8Array, data: Uint8Array): Uint8Array {
  let out = rc4(key, data);
  for (let round = 1; round <= 19; round++) out = rc4(xorKey(key, round), out);
  return out;
}

function littleEndian(value: number, bytes: number): Uint8Array {
  return Uint8Array.from({ length: bytes }, (_, i) => (value >>> (8 * i)) & 0xff);
}

/**
 * One page reading "Secret text", encrypted with AES-128 (V4/R4, AESV2) under user password
 * `userPassword`, so a reader without the password cannot open it.
 */
export function makeEncryptedPdf(userPassword = "user", ownerPassword = "owner"): Uint8Array {
  const fileId = md5(latin1("ollama-web encrypted fixture"));
  const permissions = -4;
  const ownerKey = md5Rounds(padPassword(ownerPassword));
  const ownerEntry = rc4Rounds(ownerKey, padPassword(userPassword));
  const fileKey = md5Rounds(concat([padPassword(userPassword), ownerEntry, littleEndian(permissions, 4), fileId]));
  const userEntry = concat([rc4Rounds(fileKey, md5(PASSWORD_PAD, fileId)), new Uint8Array(16)]);

  const encryptStream = (objectNumber: number, data: Uint8Array): Uint8Array => {
    const objectKey = md5(fileKey, littleEndian(objectNumber, 3), littleEndian(0, 2), latin1("sAlT"));
    const iv = md5(latin1(`iv ${objectNumber}`)); // fixed IV keeps the fixture deterministic
    const cipher = createCipheriv("aes-128-cbc", objectKey, iv);
    return concat([iv, cipher.update(data), cipher.final()]);
  };

  const objects: PdfObject[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(encryptStream(4, latin1(textContent(["Secret text"])))),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Filter /Standard /V 4 /R 4 /Length 128 /P ${permissions} /O ${hex(ownerEntry)} /U ${hex(userEntry)}` +
      " /CF << /StdCF << /Type /CryptFilter /CFM /AESV2 /AuthEvent /DocOpen /Length 16 >> >> /StmF /StdCF /StrF /StdCF >>",
  ];
  return writePdf(objects, `/Root 1 0 R /Encrypt 6 0 R /ID [${hex(fileId)} ${hex(fileId)}]`);
}

/** A PDF header followed by garbage: no objects, no cross-reference table, no trailer. */
export function makeCorruptPdf(): Uint8Array {
  const garbage = Uint8Array.from({ length: 600 }, (_, i) => (i * 73 + 11) % 251);
  return concat([latin1("%PDF-1.7\n"), garbage]);
}

/** A valid text PDF cut off in the middle of its first object. */
export function makeTruncatedPdf(): Uint8Array {
  const whole = makeTextPdf([["truncated"]]);
  return whole.slice(0, 40);
}
