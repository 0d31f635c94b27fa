import { attachmentText, textFormatOf } from "@/lib/files/attachment-text";
import { DocxError } from "@/lib/files/docx-html";
import { type ToolError, type ToolOutcome, toolError, toolOk, withSource } from "./outcome";
import { fitPage, sliceText } from "./page-fit";
import { makeToken } from "./pagination";
import type { StoredFileInfo, ToolServices } from "./services";

/**
 * Attachments that are not PDFs — text, Markdown, CSV, JSON, HTML, DOCX — read page by page as
 * text, by `pdf_to_text` and `scrape_url` alike (a model reaches for either): the same lossless
 * paging as a web page, the token naming the attachment and the character offset. A CSV page ends
 * at the end of a row when one ends on it, and later pages repeat the table's header row.
 */

export type StoredFile = StoredFileInfo & { bytes: Buffer };

export const ATTACHMENT_PREFIX = "attachment:";

export const isPdfFile = (file: StoredFileInfo) => file.mime.split(";")[0]?.trim() === "application/pdf";

/** A file of this conversation, or the error naming what to use instead. */
export async function findAttachment(
  services: ToolServices,
  conversationId: string,
  fileId: string,
): Promise<{ file: StoredFile } | { error: ToolError }> {
  const file = await services.files.get(conversationId, fileId);
  if (file) return { file };
  const message = `Attachment not found: ${fileId}. Use an attachment:<id> listed for this conversation.`;
  return { error: { kind: "not_found", message } };
}

export async function readTextAttachment(
  file: StoredFile,
  { tool, offset, maxChars }: { tool: string; offset: number; maxChars: number },
  services: ToolServices,
): Promise<ToolOutcome> {
  const { limits } = services;
  const ref = `${ATTACHMENT_PREFIX}${file.id}`;
  const format = textFormatOf(file.mime);
  if (!format)
    return toolError("unsupported_content", `${ref} (${file.filename}) is an image: it has no text to read.`);
  let read: Awaited<ReturnType<typeof attachmentText>>;
  try {
    read = await attachmentText(file, format, limits);
  } catch (error) {
    if (!(error instanceof DocxError)) throw error;
    const kind = error.reason === "too_large" || error.reason === "timeout" ? "too_large" : "unsupported_content";
    return toolError(kind, `${error.message} (${ref}, ${file.filename})`);
  }
  const { text, tableHead } = read;
  if (!text.trim()) return toolOk(`${ref} (${file.filename}) has no text.`);
  if (offset >= text.length) return toolOk(`No more text in ${ref}: it has ${text.length} characters.`);
  // The header row atop a later page, unless it would crowd the page (a table thousands of columns wide).
  const head = offset > 0 && tableHead && tableHead.length * 4 <= maxChars ? tableHead : "";
  const page = await fitPage(
    (budget) => {
      let body = sliceText(text, offset, budget);
      const rowEnd = body.lastIndexOf("\n");
      if (tableHead && offset + body.length < text.length && rowEnd >= 0) body = body.slice(0, rowEnd + 1);
      const next = offset + body.length;
      return {
        header: head,
        body,
        nextToken:
          next < text.length
            ? makeToken({ tool, attachment: file.id, offset: next }, services.secret, services.now?.())
            : null,
      };
    },
    // max_chars counts the repeated header row too.
    { limit: limits.MAX_TOOL_RESULT_CHARS, maxChars: Math.max(1, maxChars - head.length) },
  );
  return withSource(page, { url: ref, title: file.filename });
}

/** scrape_url given `attachment:<id>`: any type but PDF, read as text; a PDF is pdf_to_text's. */
export async function readAttachmentForScrape(
  ref: string,
  { offset, maxChars, conversationId }: { offset: number; maxChars: number; conversationId: string },
  services: ToolServices,
): Promise<ToolOutcome> {
  const fileId = ref.slice(ATTACHMENT_PREFIX.length).trim();
  const found = await findAttachment(services, conversationId, fileId);
  if ("error" in found) return { ok: false, error: found.error };
  if (isPdfFile(found.file)) {
    const message = `${ATTACHMENT_PREFIX}${fileId} is a PDF: read it with pdf_to_text (url_or_path "${ATTACHMENT_PREFIX}${fileId}").`;
    return toolError("unsupported_content", message);
  }
  return readTextAttachment(found.file, { tool: "scrape_url", offset, maxChars }, services);
}
