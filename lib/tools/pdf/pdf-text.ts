/**
 * PDF text for the `pdf_to_text` and `search_and_fetch` tools and for uploads: open a PDF in a
 * worker process with pdf.js under limits (`pdf-document.ts`, `pdf-limits.ts`), reuse open stored
 * files (`pdf-cache.ts`) and page through the text losslessly with a (page, offset) cursor
 * (`read-window.ts`). Callers import from here.
 */
export { openPdfCached, PdfDocumentCache } from "./pdf-cache";
export { openPdf, type PdfText } from "./pdf-document";
export { PdfError, type PdfErrorKind } from "./pdf-error";
export { PdfBudget, type PdfLimits, pdfLimits } from "./pdf-limits";
export { pdfWorkerCounts } from "./pdf-worker-host";
export {
  coversBlankPages,
  lacksTextLayer,
  type PdfCursor,
  type PdfWindow,
  type PdfWindowLimits,
  readWindow,
} from "./read-window";
