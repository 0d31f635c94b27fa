/** Why a PDF cannot be read; each kind's message is fit to hand to the model (or to an uploader). */

export type PdfErrorKind =
  | "encrypted"
  | "corrupt"
  | "not_pdf"
  /** The call's time budget ran out; the worker was stopped. */
  | "too_slow"
  /** The worker reached its heap limit and was stopped. */
  | "too_much_memory"
  /** A stream needed to open the document decodes past the buffer cap. */
  | "stream_too_large"
  /** The worker died for another reason. */
  | "reader_failed"
  /** The document was closed by its holder (not a fault). */
  | "closed";

const STOPPED = "Reading this PDF was stopped";
const HOSTILE = "the file may be damaged or built to exhaust the reader.";

const messages: Record<PdfErrorKind, (detail: string) => string> = {
  encrypted: () => "PDF is encrypted (password protected).",
  not_pdf: () => "Not a PDF file.",
  corrupt: (detail) => `PDF is corrupt or unreadable: ${detail}`,
  too_slow: (detail) => `${STOPPED}: it needed more than ${detail} of processing time; ${HOSTILE}`,
  too_much_memory: (detail) => `${STOPPED}: it needed more than ${detail} of memory; ${HOSTILE}`,
  stream_too_large: (detail) => `${STOPPED}: a stream in it inflates to more than ${detail}; ${HOSTILE}`,
  reader_failed: (detail) => `Reading this PDF failed: the PDF reader stopped unexpectedly (${detail}).`,
  closed: () => "The PDF document is closed.",
};

export class PdfError extends Error {
  readonly kind: PdfErrorKind;

  /** `detail`: the reason for `corrupt` and `reader_failed`, the exceeded limit ("10 s", "64 MB") for the limits. */
  constructor(kind: PdfErrorKind, detail = "unknown error") {
    super(messages[kind](detail));
    this.name = "PdfError";
    this.kind = kind;
  }

  /** True for the kinds that mean a limit stopped the reader, not that the file is unreadable. */
  get exceededLimit(): boolean {
    return this.kind === "too_slow" || this.kind === "too_much_memory" || this.kind === "stream_too_large";
  }
}

/** "10 s", "1.5 s" */
export const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;
