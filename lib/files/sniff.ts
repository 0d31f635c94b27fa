import { displayFilename } from "@/lib/text/bidi-controls";
import { DOCX_MIME, textTypeOf } from "./document-types";
import { isDocx } from "./zip-entries";

/**
 * File types are recognised by content: PDFs, images and DOCX by signature. Text has none, so a name
 * ending in a text type's extension (.txt, .md, .csv, .json, .html) is taken at its word here, and
 * the upload then checks that the bytes decode as text.
 */

export type SniffedType = { mime: string; kind: "pdf" | "image" | "docx" | "text"; extension: string };

const SIGNATURES: { mime: string; kind: SniffedType["kind"]; extension: string; test: (b: Buffer) => boolean }[] = [
  { mime: "application/pdf", kind: "pdf", extension: "pdf", test: (b) => b.subarray(0, 1024).includes("%PDF-") },
  {
    mime: "image/png",
    kind: "image",
    extension: "png",
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { mime: "image/jpeg", kind: "image", extension: "jpg", test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    mime: "image/gif",
    kind: "image",
    extension: "gif",
    test: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString("latin1")),
  },
  {
    mime: "image/webp",
    kind: "image",
    extension: "webp",
    test: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
  },
];

/** A ZIP archive's first bytes (a DOCX is one). */
export const isZip = (bytes: Buffer) => bytes.subarray(0, 4).toString("latin1") === "PK\x03\x04";

export function sniffFileType(bytes: Buffer, filename = ""): SniffedType | null {
  const match = SIGNATURES.find((signature) => signature.test(bytes));
  if (match) return { mime: match.mime, kind: match.kind, extension: match.extension };
  if (isZip(bytes)) return isDocx(bytes) ? { mime: DOCX_MIME, kind: "docx", extension: "docx" } : null;
  const text = textTypeOf(filename);
  return text ? { ...text, kind: "text" } : null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what must go
export const UNSAFE_FILENAME_CHARS = /[\u0000-\u001f\u007f<>:"/\\|?*\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * A filename safe to store, show and send back in Content-Disposition: no directories, no control
 * characters, no bidi controls (overrides, isolates, marks), no HTML brackets, no leading dots,
 * bounded length, and the extension of the real type. Uploads and fetched files both go through it.
 */
export function safeFilename(name: string | null | undefined, extension: string): string {
  const base = (name ?? "").split(/[\\/]/).at(-1) ?? "";
  let clean = base
    .normalize("NFC")
    .replace(UNSAFE_FILENAME_CHARS, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+/, "");
  clean = clean.replace(/\.[A-Za-z0-9]{1,8}$/, "");
  if (!clean || /^_+$/.test(clean)) clean = "file";
  return `${clean.slice(0, 120)}.${extension}`;
}

/**
 * `Content-Disposition: attachment` with an ASCII fallback and the UTF-8 name (RFC 6266). Names
 * stored before fetched names were cleaned may hold bidi controls: the saved file never does.
 * The fallback is the name with other characters as `_`, unless the caller gives a better one.
 */
export function contentDisposition(filename: string, asciiFallback?: string): string {
  const name = displayFilename(filename);
  const ascii = (asciiFallback ?? name).replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
