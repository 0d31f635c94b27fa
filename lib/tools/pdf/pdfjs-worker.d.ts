// pdfjs-dist ships no typings for its worker module; it is imported only for its side effect.
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs";
