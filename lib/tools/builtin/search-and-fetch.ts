import { z } from "zod";
import { safeFilename } from "@/lib/files/sniff";
import { prompt } from "@/lib/prompts";
import { fetchFailure, isMediaType } from "../fetch-errors";
import { toolError, toolOk, withSource } from "../outcome";
import { fitPage, sliceText } from "../page-fit";
import { InvalidTokenError, makeToken, parseToken, type TokenPayload } from "../pagination";
import { coversBlankPages, openPdfCached, PdfError, type PdfText, pdfLimits, readWindow } from "../pdf/pdf-text";
import { defineTool, type ToolContext } from "../registry";
import type { FileQuotaRefusal, StoredFileInfo, ToolServices } from "../services";
import { continueFrom, limitOr, optionalCount } from "./args";
import { pageText } from "./scrape-url";
import { searchWeb } from "./web-search";

/**
 * `search_and_fetch`: a search whose result links to files of one type are fetched, stored in the
 * conversation and read page by page, across files, with one continuation token (docs/tools.md).
 * Over 300 lines on purpose: the token's cursor, its checks and the reading it drives are one state
 * machine, read together.
 */
export const FETCH_FILE_TYPES = ["pdf", "csv", "txt", "md", "json", "html", "htm", "xml", "py", "js", "ts"] as const;

interface Candidate {
  title: string;
  href: string;
}

interface FetchCursor {
  matched: Candidate[];
  fileType: string;
  fileIdx: number;
  fileOffset: number;
  pdfPageIndex: number;
  pdfPageCharOffset: number;
  /** The stored copy of the current file, so later pages read it from the database, not the web. */
  fileId?: string;
}

const TOKEN_FIELDS = ["matched", "file_idx", "file_offset", "pdf_page_index", "pdf_page_char_offset", "file_type"];

function cursorFromToken(token: TokenPayload): FetchCursor {
  const matched = token.matched;
  if (
    !Array.isArray(matched) ||
    !matched.every((m) => m && typeof m.href === "string" && typeof m.title === "string")
  ) {
    throw new InvalidTokenError("bad matched list");
  }
  const numbers = [token.file_idx, token.file_offset, token.pdf_page_index, token.pdf_page_char_offset].map(Number);
  if (!numbers.every((n) => Number.isInteger(n) && n >= 0)) throw new InvalidTokenError("bad cursor");
  const [fileIdx, fileOffset, pdfPageIndex, pdfPageCharOffset] = numbers as [number, number, number, number];
  return {
    matched: matched as Candidate[],
    fileType: String(token.file_type),
    fileIdx,
    fileOffset,
    pdfPageIndex,
    pdfPageCharOffset,
    fileId: typeof token.file_id === "string" ? token.file_id : undefined,
  };
}

function tokenFor(cursor: FetchCursor, services: ToolServices): string {
  return makeToken(
    {
      tool: "search_and_fetch",
      matched: cursor.matched,
      file_type: cursor.fileType,
      file_idx: cursor.fileIdx,
      file_offset: cursor.fileOffset,
      pdf_page_index: cursor.pdfPageIndex,
      pdf_page_char_offset: cursor.pdfPageCharOffset,
      ...(cursor.fileId ? { file_id: cursor.fileId } : {}),
    },
    services.secret,
    services.now?.(),
  );
}

/** The cursor at the start of the next candidate, or null after the last. */
function nextCandidate(cursor: FetchCursor): FetchCursor | null {
  if (cursor.fileIdx + 1 >= cursor.matched.length) return null;
  return {
    ...cursor,
    fileIdx: cursor.fileIdx + 1,
    fileOffset: 0,
    pdfPageIndex: 0,
    pdfPageCharOffset: 0,
    fileId: undefined,
  };
}

/** True when the URL's path (not its query or fragment) ends with `.<extension>`, in any case. */
export function hasExtension(url: string, extension: string): boolean {
  try {
    return new URL(url).pathname.toLowerCase().endsWith(`.${extension}`);
  } catch {
    return false;
  }
}

const isPdf = (mime: string, bytes: Buffer) =>
  mime === "application/pdf" || bytes.subarray(0, 5).toString("latin1") === "%PDF-";

/**
 * The stored name of a fetched file: the URL's last path segment, cleaned exactly like an upload's
 * name (no directories, CR/LF, HTML brackets or bidi controls), ending in what the file is: .pdf for
 * a PDF, else the URL's own extension when it is a type this tool fetches, else the type asked for.
 */
export function fetchedFilename(url: string, fileType: string, pdf: boolean): string {
  let last = "";
  try {
    last = decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).at(-1) ?? "");
  } catch {
    // A malformed escape: safeFilename's default name.
  }
  const own = /\.([A-Za-z0-9]+)$/.exec(last)?.[1]?.toLowerCase() ?? "";
  const extension = pdf ? "pdf" : (FETCH_FILE_TYPES as readonly string[]).includes(own) ? own : fileType;
  return safeFilename(last || "download", extension);
}

/** Why a fetched file was not stored, for the model: which quota, and its limit. */
function notStoredReason(refused: FileQuotaRefusal, context: ToolContext): string {
  return refused.quota === "user_storage"
    ? prompt(context.language, "fetch_not_stored_storage", {
        limit: String(Math.round(refused.limitBytes / 1024 / 1024)),
      })
    : prompt(context.language, "fetch_not_stored_files", { limit: String(refused.limit) });
}

/** The current candidate as a stored file: the saved copy when the token names one, else fetched and saved now. */
async function loadCandidate(
  cursor: FetchCursor,
  services: ToolServices,
  context: ToolContext,
): Promise<{ file: StoredFileInfo & { bytes: Buffer } } | { error: string } | { notStored: string }> {
  const candidate = cursor.matched[cursor.fileIdx] as Candidate;
  if (cursor.fileId) {
    const stored = await services.files.get(context.conversationId, cursor.fileId);
    if (stored) return { file: stored };
  }
  try {
    const resource = await services.fetch(candidate.href, { signal: context.signal });
    if (isMediaType(resource.mime)) return { error: `unsupported content type ${resource.mime}` };
    const pdf = isPdf(resource.mime, resource.bytes);
    const saved = await services.files.saveFetched(context.conversationId, {
      filename: fetchedFilename(resource.url, cursor.fileType, pdf),
      // Text keeps its Content-Type with the charset, so the stored copy decodes the same way later.
      mime: pdf ? "application/pdf" : resource.contentType || "text/plain",
      bytes: resource.bytes,
      sourceUrl: resource.url,
      pageCount: null,
    });
    if ("refused" in saved) return { notStored: notStoredReason(saved.refused, context) };
    return { file: { ...saved, bytes: resource.bytes } };
  } catch (error) {
    if (context.signal.aborted) throw error;
    return { error: fetchFailure(error, candidate.href).message };
  }
}

export function createSearchAndFetch(services: ToolServices) {
  const { limits } = services;
  return defineTool({
    name: "search_and_fetch",
    description: `Search the web for files of one type (${FETCH_FILE_TYPES.join(", ")}), download the best candidates and return their text, one file page per call. Each downloaded file is saved and can be read again as attachment:<id>. Pass next_token as continue_from to read on.`,
    paged: true,
    schema: z.object({
      query: z.string().describe("What to search for").nullish(),
      file_type: z
        .string()
        .describe(`One of: ${FETCH_FILE_TYPES.join(", ")}`)
        .nullish(),
      max_results: optionalCount,
      max_chars: optionalCount,
      continue_from: continueFrom,
    }),
    async execute(args, context) {
      const say = (key: Parameters<typeof prompt>[1], vars: Record<string, string> = {}) =>
        prompt(context.language, key, vars);
      let cursor: FetchCursor;
      if (args.continue_from) {
        try {
          cursor = cursorFromToken(
            parseToken(args.continue_from, {
              tool: "search_and_fetch",
              required: TOKEN_FIELDS,
              secret: services.secret,
              ttlSeconds: limits.PAGINATION_TOKEN_TTL,
              now: services.now?.(),
            }),
          );
        } catch (error) {
          if (error instanceof InvalidTokenError) return toolError("invalid_token", error.message);
          throw error;
        }
      } else {
        const query = args.query?.trim() ?? "";
        const fileType = (args.file_type ?? "").trim().toLowerCase().replace(/^\./, "");
        if (!query) return toolError("invalid_input", say("fetch_empty_query"));
        if (!(FETCH_FILE_TYPES as readonly string[]).includes(fileType)) {
          const allowed = FETCH_FILE_TYPES.join(", ");
          return toolError("invalid_input", say("fetch_invalid_type", { file_type: args.file_type ?? "", allowed }));
        }
        const max = limitOr(args.max_results, limits.FETCH_MAX_RESULTS, limits.FETCH_MAX_RESULTS);
        // Twice the candidates, as the seed does: results that are not files of the type are dropped.
        const search = await searchWeb(services, `${query} filetype:${fileType}`, max * 2, context.signal);
        if (!search.ok) return { ok: false, error: search.error };
        const results = search.results.filter((result) => hasExtension(result.href, fileType)).slice(0, max);
        if (results.length === 0) return toolOk(say("fetch_no_results", { query, file_type: fileType }));
        cursor = {
          matched: results.map(({ title, href }) => ({ title, href })),
          fileType,
          fileIdx: 0,
          fileOffset: 0,
          pdfPageIndex: 0,
          pdfPageCharOffset: 0,
        };
      }
      if (cursor.fileIdx >= cursor.matched.length) return toolOk(say("fetch_no_more"));

      const candidate = cursor.matched[cursor.fileIdx] as Candidate;
      const loaded = await loadCandidate(cursor, services, context);
      const baseHeader = (format: string, size: number, extent: string) =>
        say("fetch_header", {
          idx: String(cursor.fileIdx + 1),
          url: candidate.href,
          title: candidate.title,
          format,
          size: String(size),
          extent,
        });
      /**
       * A PDF's pages and characters. Counting the characters reads every page, so it is done only
       * when that is within one call's page budget (the pages are memoised for the windows that follow).
       */
      const pdfExtent = async (pdf: PdfText) => {
        const pages = say("fetch_pages", { pages: String(pdf.pageCount) });
        if (pdf.pageCount > limits.MAX_PDF_PAGES) {
          return `${pages}\n${say("fetch_chars_uncounted", { max_pages: String(limits.MAX_PDF_PAGES) })}`;
        }
        let chars = 0;
        for (let index = 0; index < pdf.pageCount; index++) chars += (await pdf.pageText(index)).length;
        return `${pages}\n${say("fetch_chars", { chars: String(chars) })}`;
      };
      const limit = limits.MAX_TOOL_RESULT_CHARS;
      const maxChars = limitOr(args.max_chars, limits.FETCH_MAX_CHARS);

      if (!("file" in loaded)) {
        const next = nextCandidate(cursor);
        return fitPage(
          () => ({
            header: `${baseHeader("-", 0, "-")}---\n`,
            body: "notStored" in loaded ? loaded.notStored : say("fetch_failed", { reason: loaded.error }),
            nextToken: next ? tokenFor(next, services) : null,
          }),
          { limit, maxChars: limit },
        );
      }

      const { file } = loaded;
      const saved = say("fetch_saved", { id: file.id });
      const source = { url: candidate.href, title: candidate.title || candidate.href };
      if (file.mime === "application/pdf") {
        // One time budget covers this call; a PDF stopped by a limit (or unreadable) is reported
        // like a failed fetch, and the token moves on to the next candidate.
        let pdf: PdfText | undefined;
        try {
          pdf = await openPdfCached(file.sha256, () => file.bytes, pdfLimits(limits));
          const leased = pdf;
          const header = `${baseHeader(file.mime, file.size, await pdfExtent(leased))}${saved}`;
          const page = await fitPage(
            async (budget) => {
              const window = await readWindow(
                leased,
                { pageIndex: cursor.pdfPageIndex, pageCharOffset: cursor.pdfPageCharOffset },
                { maxChars: budget, maxPages: limits.MAX_PDF_PAGES },
              );
              const next = window.hasMore
                ? { ...cursor, pdfPageIndex: window.nextPage, pdfPageCharOffset: window.nextOffset, fileId: file.id }
                : nextCandidate(cursor);
              // Blank (scanned) pages are named above the body, which keeps their whitespace.
              const blank = coversBlankPages(window, budget)
                ? say("pdf_no_text_pages", { first: String(window.firstPage), last: String(window.lastPage) })
                : "";
              return {
                header: `${header}${blank}---\n`,
                body: window.text,
                nextToken: next ? tokenFor(next, services) : null,
              };
            },
            { limit, maxChars },
          );
          return withSource(page, source);
        } catch (error) {
          if (!(error instanceof PdfError)) throw error;
          const next = nextCandidate(cursor);
          return fitPage(
            () => ({
              header: `${baseHeader(file.mime, file.size, "-")}${saved}---\n`,
              body: say("fetch_failed", { reason: error.message }),
              nextToken: next ? tokenFor(next, services) : null,
            }),
            { limit, maxChars: limit },
          );
        } finally {
          await pdf?.close();
        }
      }

      const mime = file.mime.split(";")[0]?.trim().toLowerCase() ?? "";
      // Later pages read the text extracted for the first (the same bytes and type extract the same).
      const key = `file:${file.sha256}:${file.mime}`;
      let extracted = services.pageCache.get(key);
      if (!extracted) {
        extracted = pageText({ bytes: file.bytes, mime, contentType: file.mime });
        services.pageCache.set(key, extracted);
      }
      const { text } = extracted;
      const header = `${baseHeader(mime, file.size, say("fetch_chars", { chars: String(text.length) }))}${saved}---\n`;
      const page = await fitPage(
        (budget) => {
          const body = sliceText(text, cursor.fileOffset, budget);
          const end = cursor.fileOffset + body.length;
          const next = end < text.length ? { ...cursor, fileOffset: end, fileId: file.id } : nextCandidate(cursor);
          return { header, body, nextToken: next ? tokenFor(next, services) : null };
        },
        { limit, maxChars },
      );
      return withSource(page, source);
    },
  });
}
