import zlib from "node:zlib";
import { concat, latin1, type PdfObject, stream, writePdf } from "./pdf-fixtures";

/**
 * PDFs built to exhaust a reader (docs/security.md, "Uploads and files"): small files whose work or memory
 * explodes when parsed. Each is cheap to build, so tests make them on the fly.
 */

const MB = 1024 * 1024;
const FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/** Part of the inflated data: `bytes` repeated `times` times. */
interface Run {
  bytes: Uint8Array;
  times: number;
}

/**
 * A zlib stream inflating to the runs one after another, built without ever holding the inflated
 * data: each run is deflated once as a flushed, non-final block sequence (which needs no earlier
 * data) and repeated. The Adler-32 trailer is left zero: pdf.js does not check it.
 */
export function deflateRuns(runs: Run[]): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(0x78, 0x9c)];
  for (const { bytes, times } of runs) {
    const block = zlib.deflateRawSync(bytes, { finishFlush: zlib.constants.Z_FULL_FLUSH });
    for (let i = 0; i < times; i++) parts.push(block);
  }
  // An empty final block with fixed codes, then the (unchecked) checksum.
  parts.push(Uint8Array.of(0x03, 0x00), new Uint8Array(4));
  return concat(parts);
}

/**
 * A page whose content is the stream `content` (FlateDecode), with Helvetica as /F1, after a readable
 * page for each of `before`. The content is an array, as most writers make it: pdf.js then reads
 * the whole stream at once (one synchronous inflate), as it does for multi-stream pages.
 */
function onePage(content: Uint8Array, before: string[] = []): Uint8Array {
  const objects: PdfObject[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${before.map((_, i) => `${6 + 2 * i} 0 R`).join(" ")} 3 0 R] /Count ${before.length + 1} >>`,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents [4 0 R] >>",
    stream(content, " /Filter /FlateDecode"),
    FONT,
  ];
  for (const [i, text] of before.entries()) {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents ${7 + 2 * i} 0 R >>`,
      stream(latin1(`BT /F1 11 Tf 50 800 Td (${text}) Tj ET`)),
    );
  }
  return writePdf(objects, "/Root 1 0 R");
}

/**
 * A page whose content stream inflates to `inflatedMb` MB of zeros (whitespace to a PDF lexer),
 * after one readable page saying `firstPage` when given. 2048 MB takes about 2 MB of file.
 */
export function makeFlateBombPdf(inflatedMb: number, firstPage?: string): Uint8Array {
  const content = deflateRuns([{ bytes: new Uint8Array(MB), times: inflatedMb }]);
  return onePage(content, firstPage === undefined ? [] : [firstPage]);
}

/** A page drawing one string of `megabytes` MB of "A" (from a content stream of a few hundred KB). */
export function makeHugeStringPdf(megabytes: number): Uint8Array {
  const content = deflateRuns([
    { bytes: latin1("BT /F1 12 Tf 50 700 Td ("), times: 1 },
    { bytes: new Uint8Array(MB).fill(0x41), times: megabytes },
    { bytes: latin1(") Tj ET"), times: 1 },
  ]);
  return onePage(content);
}

/** A page of `lines` lines of one character each: that many text items from a few KB of file. */
export function makeManyItemsPdf(lines: number, firstPage?: string): Uint8Array {
  // Blocks of 100 lines, each starting at the top again: pdf.js drops text drawn off the page.
  const content = deflateRuns([
    { bytes: latin1("BT /F1 1 Tf 2 TL "), times: 1 },
    { bytes: latin1(`1 0 0 1 50 800 Tm ${"(x) Tj T* ".repeat(100)}`), times: Math.ceil(lines / 100) },
    { bytes: latin1("ET"), times: 1 },
  ]);
  return onePage(content, firstPage === undefined ? [] : [firstPage]);
}

/**
 * A PDF whose catalog sits in an object stream inflating to `inflatedMb` MB, so merely opening it
 * (counting its pages) inflates the bomb. Cross-reference stream, PDF 1.5 style.
 */
export function makeObjectStreamBombPdf(inflatedMb: number): Uint8Array {
  const catalog = "1 0 << /Type /Catalog /Pages 2 0 R >>";
  const packed = deflateRuns([
    { bytes: latin1(catalog), times: 1 },
    { bytes: new Uint8Array(MB), times: inflatedMb },
  ]);
  const parts: Uint8Array[] = [latin1("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (number: number, body: Uint8Array) => {
    offsets[number] = length;
    const chunk = concat([latin1(`${number} 0 obj\n`), body, latin1("\nendobj\n")]);
    parts.push(chunk);
    length += chunk.length;
  };
  add(2, latin1("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"));
  add(3, latin1("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>"));
  add(4, stream(latin1("0 0 m 1 1 l S")));
  add(5, stream(packed, ` /Type /ObjStm /N 1 /First ${catalog.indexOf("<<")} /Filter /FlateDecode`));
  // Entries of 1 + 4 + 2 bytes: type, then offset and generation (type 1) or object stream and index (type 2).
  const entry = (type: number, field: number, extra: number) =>
    Uint8Array.of(
      type,
      field >>> 24,
      (field >>> 16) & 0xff,
      (field >>> 8) & 0xff,
      field & 0xff,
      extra >>> 8,
      extra & 0xff,
    );
  const xrefOffset = length;
  const rows = [entry(0, 0, 0xffff), entry(2, 5, 0), ...[2, 3, 4, 5].map((n) => entry(1, offsets[n]!, 0))];
  rows.push(entry(1, xrefOffset, 0));
  add(6, stream(concat(rows), " /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R"));
  parts.push(latin1(`startxref\n${xrefOffset}\n%%EOF\n`));
  return concat(parts);
}

/**
 * A page whose text extraction does not end in practice: forms A_k and B_k each draw both A_k+1
 * and B_k+1, `depth` levels deep, so the page draws 2^depth forms. They hold no text, but pdf.js
 * remembers an empty form only per name and object, so every distinct path is evaluated.
 */
export function makeEndlessPdf(depth = 40): Uint8Array {
  // 1 catalog, 2 pages, 3 page, 4 content, then A_k = 5 + 2(k-1), B_k = 6 + 2(k-1) for k = 1..depth.
  const form = (k: number, variant: 0 | 1) => 5 + 2 * (k - 1) + variant;
  const objects: PdfObject[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /P ${form(1, 0)} 0 R /Q ${form(1, 1)} 0 R >> >> /Contents 4 0 R >>`,
    stream(latin1("/P Do /Q Do")),
  ];
  for (let k = 1; k <= depth; k++) {
    for (const _variant of [0, 1]) {
      const resources =
        k < depth ? `/Resources << /XObject << /P ${form(k + 1, 0)} 0 R /Q ${form(k + 1, 1)} 0 R >> >>` : "";
      const drawing = k < depth ? "/P Do /Q Do" : "0 0 m 1 1 l S";
      objects.push(stream(latin1(drawing), ` /Type /XObject /Subtype /Form /BBox [0 0 10 10] ${resources}`));
    }
  }
  return writePdf(objects, "/Root 1 0 R");
}
