import { z } from "zod";
import { prompt } from "@/lib/prompts";
import { ATTACHMENT_PREFIX, findAttachment, isPdfFile, readTextAttachment } from "../attachment-reader";
import { type ToolError, type ToolOutcome, toolError, toolOk, withSource } from "../outcome";
import { fitPage } from "../page-fit";
import { InvalidTokenError, makeToken, parseToken } from "../pagination";
import {
  coversBlankPages,
  lacksTextLayer,
  openPdfCached,
  PdfError,
  type PdfText,
  pdfLimits,
  readWindow,
} from "../pdf/pdf-text";
import { attachmentPdf, fetchPdf, type PdfSource, parsePdfSource } from "../pdf-source";
import { defineTool, type ToolContext } from "../registry";
import type { ToolServices } from "../services";
import { continueFrom, limitOr, optionalCount } from "./args";

export const NO_TEXT_LAYER = "No extractable text (scanned PDF?)";

function sourceFields(source: PdfSource): Record<string, string> {
  return source.kind === "url" ? { url: source.url } : { attachment: source.fileId };
}

/** A PDF the reader refused or stopped, named as the model asked for it. */
function pdfFailure(error: PdfError, label: string): ToolError {
  const kind =
    error.kind === "not_pdf" ? "unsupported_content" : error.exceededLimit ? "pdf_over_limit" : "unreadable_pdf";
  return { kind, message: `${error.message} (${label})` };
}

export function createPdfToText(services: ToolServices) {
  const { limits } = services;
  return defineTool({
    name: "pdf_to_text",
    description:
      "Read the text of a PDF at an http(s) URL, or of any file of this conversation as attachment:<id> (PDF, Word, text, Markdown, CSV, JSON, HTML). Long files come in parts: pass the latest next_token as continue_from (alone) to read on.",
    paged: true,
    schema: z.object({
      url_or_path: z.string().describe("http(s) URL of the PDF, or attachment:<id> of any attached file").nullish(),
      max_chars: optionalCount,
      continue_from: continueFrom,
    }),
    async execute(args, context) {
      let source: PdfSource;
      let cursor = { pageIndex: 0, pageCharOffset: 0 };
      let textOffset = 0;
      const maxChars = limitOr(args.max_chars, limits.FETCH_MAX_CHARS);
      if (args.continue_from) {
        try {
          const token = parseToken(args.continue_from, {
            tool: "pdf_to_text",
            required: [],
            secret: services.secret,
            ttlSeconds: limits.PAGINATION_TOKEN_TTL,
            now: services.now?.(),
          });
          if (typeof token.url === "string") source = { kind: "url", url: token.url };
          else if (typeof token.attachment === "string") source = { kind: "attachment", fileId: token.attachment };
          else throw new InvalidTokenError("missing field url or attachment");
          if ("offset" in token) textOffset = Number(token.offset);
          else cursor = { pageIndex: Number(token.page_index), pageCharOffset: Number(token.page_char_offset) };
          if (![cursor.pageIndex, cursor.pageCharOffset, textOffset].every((n) => Number.isInteger(n) && n >= 0)) {
            throw new InvalidTokenError("bad cursor");
          }
        } catch (error) {
          if (error instanceof InvalidTokenError) return toolError("invalid_token", error.message);
          throw error;
        }
      } else {
        if (!args.url_or_path?.trim()) return toolError("invalid_url", "Invalid URL.");
        const parsed = parsePdfSource(args.url_or_path);
        if ("error" in parsed) return { ok: false, error: parsed.error };
        source = parsed;
      }

      let loaded: Awaited<ReturnType<typeof fetchPdf>>;
      if (source.kind === "attachment") {
        const found = await findAttachment(services, context.conversationId, source.fileId);
        if ("error" in found) return { ok: false, error: found.error };
        if (!isPdfFile(found.file)) {
          return readTextAttachment(found.file, { tool: "pdf_to_text", offset: textOffset, maxChars }, services);
        }
        loaded = attachmentPdf(found.file, services);
      } else {
        // Before anything is sent: the URL may be the model's way of carrying the conversation out.
        const refused = context.urlGuard.check(source.url);
        if (refused) return { ok: false, error: refused };
        loaded = await fetchPdf(source.url, services, context.signal);
      }
      if ("error" in loaded) return { ok: false, error: loaded.error };
      // One time budget covers this call: opening the file (unless cached) and the pages it reads.
      let pdf: Awaited<ReturnType<typeof openPdfCached>> | undefined;
      try {
        pdf = await openPdfCached(loaded.key, () => loaded.bytes, pdfLimits(limits));
        const page = await readPage(pdf, source, cursor, maxChars, context.language);
        const url = source.kind === "url" ? source.url : `${ATTACHMENT_PREFIX}${source.fileId}`;
        return withSource(page, { url, title: loaded.title });
      } catch (error) {
        if (error instanceof PdfError) return { ok: false, error: pdfFailure(error, loaded.label) };
        throw error;
      } finally {
        // The cached document is leased: give it back when this call is done with it.
        await pdf?.close();
      }
    },
  });

  async function readPage(
    pdf: PdfText,
    source: PdfSource,
    cursor: { pageIndex: number; pageCharOffset: number },
    maxChars: number,
    language: ToolContext["language"],
  ): Promise<ToolOutcome> {
    if (cursor.pageIndex >= pdf.pageCount) return toolOk(`No more text: the PDF has ${pdf.pageCount} pages.`);
    return fitPage(
      async (budget) => {
        const window = await readWindow(pdf, cursor, { maxChars: budget, maxPages: limits.MAX_PDF_PAGES });
        const nextToken = window.hasMore
          ? makeToken(
              {
                tool: "pdf_to_text",
                ...sourceFields(source),
                page_index: window.nextPage,
                page_char_offset: window.nextOffset,
              },
              services.secret,
              services.now?.(),
            )
          : null;
        // A document with no text at all is most likely a scan. Blank pages before text are named
        // above the body, which keeps their whitespace: the bodies still add up to the text.
        const blank = !lacksTextLayer(window) && coversBlankPages(window, budget);
        return {
          header: blank
            ? prompt(language, "pdf_no_text_pages", { first: String(window.firstPage), last: String(window.lastPage) })
            : undefined,
          body: lacksTextLayer(window) ? NO_TEXT_LAYER : window.text,
          nextToken,
          sourcePages: { first: window.firstPage, last: window.lastPage, total: window.totalPages },
        };
      },
      { limit: limits.MAX_TOOL_RESULT_CHARS, maxChars },
    );
  }
}
