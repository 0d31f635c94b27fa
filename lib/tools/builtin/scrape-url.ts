import { z } from "zod";
import { decodeBytes } from "@/lib/text/charset";
import { ATTACHMENT_PREFIX, readAttachmentForScrape } from "../attachment-reader";
import { fetchFailure, isMediaType } from "../fetch-errors";
import { type ExtractedPage, extractHtmlText } from "../html-text";
import { type ToolOutcome, toolError, toolOk, withSource } from "../outcome";
import { fitPage, sliceText } from "../page-fit";
import { InvalidTokenError, makeToken, parseToken } from "../pagination";
import { defineTool } from "../registry";
import type { ToolServices } from "../services";
import { continueFrom, limitOr, optionalCount } from "./args";

/**
 * Title and text of a fetched page, decoded by `decodeBytes` (BOM, header, meta, detection): HTML
 * through the extractor, other text types as they are (no title).
 */
export function pageText(resource: { bytes: Buffer; mime: string; contentType: string }): ExtractedPage {
  const html = resource.mime === "text/html" || resource.mime === "application/xhtml+xml" || resource.mime === "";
  const { text } = decodeBytes(resource.bytes, { contentType: resource.contentType, html });
  return html ? extractHtmlText(text) : { title: "", text: text.replace(/\r\n?/g, "\n") };
}

/** The page at `url`, fetched and extracted, or the failure the tool reports. */
async function fetchPage(
  url: string,
  services: ToolServices,
  signal: AbortSignal,
): Promise<{ ok: true; page: ExtractedPage } | { ok: false; outcome: ToolOutcome }> {
  let resource: Awaited<ReturnType<ToolServices["fetch"]>>;
  try {
    resource = await services.fetch(url, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    return { ok: false, outcome: { ok: false, error: fetchFailure(error, url) } };
  }
  if (isMediaType(resource.mime)) {
    const message = `Failed to fetch ${url}: unsupported content type ${resource.mime} (scrape_url reads text only).`;
    return { ok: false, outcome: toolError("unsupported_content", message) };
  }
  if (resource.mime === "application/pdf" || resource.bytes.subarray(0, 5).toString("latin1") === "%PDF-") {
    const message = `Failed to fetch ${url}: this is a PDF; read it with pdf_to_text.`;
    return { ok: false, outcome: toolError("unsupported_content", message) };
  }
  return { ok: true, page: pageText(resource) };
}

export function createScrapeUrl(services: ToolServices) {
  const { limits } = services;
  return defineTool({
    name: "scrape_url",
    description:
      "Fetch a web page and return its main text; also reads a text, Word, CSV, JSON or HTML file of this conversation given as attachment:<id> (PDFs: pdf_to_text). Long pages come in parts: pass the result's next_token as continue_from to read on.",
    paged: true,
    schema: z.object({
      url: z.string().describe("Absolute http(s) URL of the page, or attachment:<id>").optional(),
      max_chars: optionalCount,
      continue_from: continueFrom,
    }),
    async execute(args, context) {
      let url = args.url?.trim() ?? "";
      let offset = 0;
      if (args.continue_from) {
        try {
          const token = parseToken(args.continue_from, {
            tool: "scrape_url",
            required: ["offset"],
            secret: services.secret,
            ttlSeconds: limits.PAGINATION_TOKEN_TTL,
            now: services.now?.(),
          });
          url = typeof token.attachment === "string" ? `${ATTACHMENT_PREFIX}${token.attachment}` : String(token.url);
          offset = Number(token.offset);
          if (!Number.isInteger(offset) || offset < 0) throw new InvalidTokenError("bad offset");
        } catch (error) {
          if (error instanceof InvalidTokenError) return toolError("invalid_token", error.message);
          throw error;
        }
      }
      if (!url) return toolError("invalid_url", "Invalid URL.");
      if (url.toLowerCase().startsWith(ATTACHMENT_PREFIX)) {
        const maxChars = limitOr(args.max_chars, limits.SCRAPE_MAX_CHARS);
        return readAttachmentForScrape(url, { offset, maxChars, conversationId: context.conversationId }, services);
      }

      // Before anything is sent: the URL may be the model's way of carrying the conversation out.
      const refused = context.urlGuard.check(url);
      if (refused) return { ok: false, error: refused };
      // A continuation reads the text extracted when the page was first fetched.
      let page = args.continue_from ? services.pageCache.get(url) : null;
      if (!page) {
        const fetched = await fetchPage(url, services, context.signal);
        if (!fetched.ok) return fetched.outcome;
        page = fetched.page;
        services.pageCache.set(url, page);
      }
      const { title, text } = page;
      if (offset >= text.length && offset > 0) return toolOk(`No more text at this position of ${url}.`);
      const maxChars = limitOr(args.max_chars, limits.SCRAPE_MAX_CHARS);
      const outcome = await fitPage(
        (budget) => {
          const body = sliceText(text, offset, budget);
          const next = offset + body.length;
          return {
            body,
            nextToken:
              next < text.length
                ? makeToken({ tool: "scrape_url", url, offset: next }, services.secret, services.now?.())
                : null,
          };
        },
        { limit: limits.MAX_TOOL_RESULT_CHARS, maxChars },
      );
      return withSource(outcome, { url, title: title || url });
    },
  });
}
