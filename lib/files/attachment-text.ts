import "server-only";
import type { Config } from "@/lib/env-config";
import { decodeBytes } from "@/lib/text/charset";
import { csvToMarkdown } from "@/lib/text/csv-table";
import { prettyJson } from "@/lib/text/json-pretty";
import { extractHtmlText } from "@/lib/tools/html-text";
import { PageTextCache } from "@/lib/tools/page-text-cache";
import { DOCX_MIME } from "./document-types";
import { docxLimits, docxToHtml } from "./docx-html";

/**
 * What the model reads of a file that is neither a PDF nor an image: text decoded by its charset
 * (declared, else detected), CSV as a Markdown table, JSON indented, HTML and DOCX through the HTML
 * extractor (DOCX converted by mammoth first). Kept per content for continuation calls, least
 * recently read dropped first. A DOCX that cannot be converted throws `DocxError`.
 */

export type TextFormat = "plain" | "csv" | "json" | "html" | "docx";

export interface AttachmentText {
  text: string;
  /** A CSV table's header row and rule: worth repeating atop each later page. */
  tableHead: string | null;
}

/** How a stored file is read as text, by its type; null for images (and PDFs, which are paged by page). */
export function textFormatOf(mime: string): TextFormat | null {
  const type = mime.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === DOCX_MIME) return "docx";
  if (type.startsWith("image/") || type === "application/pdf") return null;
  if (type === "text/csv") return "csv";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  return "plain";
}

type TextLimits = Pick<
  Config,
  | "DOCX_MAX_INFLATED_MB"
  | "DOCX_TIME_BUDGET_S"
  | "DOCX_WORKER_MEMORY_MB"
  | "DOCX_WORKER_CONCURRENCY"
  | "ATTACHMENT_TEXT_CACHE_MB"
>;

let cache: PageTextCache<AttachmentText> | undefined;

export async function attachmentText(
  file: { mime: string; sha256: string; bytes: Buffer },
  format: TextFormat,
  limits: TextLimits,
): Promise<AttachmentText> {
  cache ??= new PageTextCache({ bytes: limits.ATTACHMENT_TEXT_CACHE_MB * 1024 * 1024 });
  const key = `${file.sha256}:${file.mime}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const read = await convert(file, format, limits);
  cache.set(key, read);
  return read;
}

async function convert(
  file: { mime: string; bytes: Buffer },
  format: TextFormat,
  limits: TextLimits,
): Promise<AttachmentText> {
  if (format === "docx") {
    const html = await docxToHtml(file.bytes, docxLimits(limits));
    return { text: extractHtmlText(html).text, tableHead: null };
  }
  const decoded = decodeText(file.bytes, file.mime, format === "html");
  if (format === "html") return { text: extractHtmlText(decoded).text, tableHead: null };
  if (format === "json") return { text: prettyJson(decoded), tableHead: null };
  if (format === "csv") {
    const table = csvToMarkdown(decoded);
    return { text: table.head + table.body, tableHead: table.head || null };
  }
  return { text: decoded, tableHead: null };
}

/** Text by its BOM, the charset its type declares, an HTML file's meta charset, else detected; line ends as \n. */
export function decodeText(bytes: Buffer, mime: string, html = false): string {
  const { text } = decodeBytes(bytes, { contentType: mime, html });
  return text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
}
