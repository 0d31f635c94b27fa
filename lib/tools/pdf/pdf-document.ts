import type { PDFDocumentProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import { joinTextContent, PAGE_SEPARATOR, skippedPageText } from "./page-text";
import { documentOptions, loadPdfjs } from "./pdfjs";

/** A PDF opened for reading, page by page (SPEC §11 `pdf_to_text`). */

export type PdfErrorKind = "encrypted" | "corrupt" | "not_pdf";

/** A PDF that cannot be read at all; the message is fit to hand to the model. */
export class PdfError extends Error {
  readonly kind: PdfErrorKind;

  constructor(kind: PdfErrorKind, reason?: string) {
    super(
      kind === "encrypted"
        ? "PDF is encrypted (password protected)."
        : kind === "not_pdf"
          ? "Not a PDF file."
          : `PDF is corrupt or unreadable: ${reason ?? "unknown error"}`,
    );
    this.name = "PdfError";
    this.kind = kind;
  }
}

export interface PdfText {
  readonly pageCount: number;
  /**
   * Text of page `index` (0-based), normalised, ending with the page separator "\n\n" except on the
   * last page; the concatenation of all pages is the document text. A page that fails to parse yields
   * "[Page N could not be read and was skipped.]" (1-based N, same separator rule) and adds a warning.
   * Memoised per document: each page is parsed at most once.
   */
  pageText(index: number): Promise<string>;
  /** One line per skipped page, in the order pages were read. */
  readonly warnings: string[];
  /** Frees the document (for a cached document: releases this lease). */
  close(): Promise<void>;
}

/** Acrobat accepts the header anywhere in the first 1024 bytes, and so does pdf.js. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes("%PDF-", 0, "latin1");
}

function toPdfError(error: unknown): PdfError {
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  // pdf.js throws PasswordException for a user password; an unsupported security handler
  // (certificates, unknown crypt filters) surfaces as a format error about encryption.
  if (name === "PasswordException" || /encrypt|crypt filter|security handler/i.test(message)) {
    return new PdfError("encrypted");
  }
  return new PdfError("corrupt", message);
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class PdfJsDocument implements PdfText {
  readonly pageCount: number;
  readonly warnings: string[] = [];
  readonly #doc: PDFDocumentProxy;
  readonly #pages = new Map<number, Promise<string>>();
  #closed: Promise<void> | undefined;

  constructor(doc: PDFDocumentProxy) {
    this.#doc = doc;
    this.pageCount = doc.numPages;
  }

  pageText(index: number): Promise<string> {
    if (!Number.isInteger(index) || index < 0 || index >= this.pageCount) {
      return Promise.reject(new RangeError(`Page index ${index} is outside 0..${this.pageCount - 1}.`));
    }
    const known = this.#pages.get(index);
    if (known) return known;
    if (this.#closed) return Promise.reject(new Error("The PDF document is closed."));
    const text = this.#extract(index);
    this.#pages.set(index, text);
    return text;
  }

  async #extract(index: number): Promise<string> {
    const separator = index < this.pageCount - 1 ? PAGE_SEPARATOR : "";
    try {
      const page = await this.#doc.getPage(index + 1);
      try {
        return joinTextContent(await page.getTextContent()) + separator;
      } finally {
        page.cleanup();
      }
    } catch (error) {
      this.warnings.push(`Page ${index + 1} could not be read and was skipped: ${reasonOf(error)}`);
      return skippedPageText(index + 1) + separator;
    }
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      // Let pages being parsed finish, so a close never turns a readable page into a skipped one.
      await Promise.allSettled(this.#pages.values());
      await this.#doc.destroy();
    })();
    return this.#closed;
  }
}

/** Opens a PDF from its bytes (which are copied: pdf.js takes ownership of the buffer it gets). */
export async function openPdf(bytes: Uint8Array): Promise<PdfText> {
  if (!hasPdfHeader(bytes)) throw new PdfError("not_pdf");
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({ ...documentOptions(), data: new Uint8Array(bytes) });
  try {
    return new PdfJsDocument(await task.promise);
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw toPdfError(error);
  }
}
