/**
 * PDF text for the `pdf_to_text` and `search_and_fetch` tools (SPEC §11): open a PDF with pdf.js
 * (`pdf-document.ts`), reuse open stored files (`pdf-cache.ts`) and page through the text losslessly
 * with a (page, offset) cursor (`read-window.ts`). Tools import from here.
 */
export { DEFAULT_PDF_CACHE_SIZE, openPdfCached, PdfDocumentCache } from "./pdf-cache";
export { openPdf, PdfError, type PdfErrorKind, type PdfText } from "./pdf-document";
export { lacksTextLayer, type PdfCursor, type PdfWindow, type PdfWindowLimits, readWindow } from "./read-window";
