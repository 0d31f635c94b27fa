/**
 * The attachable types that are not PDFs or images. A DOCX is known by its content (a ZIP holding
 * word/document.xml); a text file by its name's extension, once its bytes have been checked to be
 * text (`looksBinary`): text has no signature to tell a CSV from a Markdown file.
 */

export const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

export const TEXT_TYPES: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
};

/** The text type a file name claims, or null. */
export function textTypeOf(filename: string): { mime: string; extension: string } | null {
  const extension = /\.([A-Za-z0-9]{1,8})\s*$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  const mime = TEXT_TYPES[extension];
  return mime ? { mime, extension } : null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what binary data is full of
const BINARY = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f\ufffd]/g;
const SAMPLE = 64 * 1024;
/** Share of the sample that may be control characters or undecodable bytes (a stray one is allowed). */
const MAX_BINARY_SHARE = 0.005;

/** Decoded text that is mostly control characters or replacement characters: binary data under a text name. */
export function looksBinary(decoded: string): boolean {
  const sample = decoded.slice(0, SAMPLE);
  const count = sample.match(BINARY)?.length ?? 0;
  return sample.includes("\u0000") || count > sample.length * MAX_BINARY_SHARE;
}
