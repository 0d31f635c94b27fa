/**
 * Invisible characters that reorder text as it is displayed. An embedding, override or isolate
 * (U+202A–U+202E, U+2066–U+2069) makes "invoice\u202Efdp.exe" read as "invoiceexe.pdf", or shows
 * code other than what runs; a model answer or a page it read must not do that to the user.
 */
const BIDI_FORMATTING = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * The directional marks (LRM, RLM, ALM) cannot move letters, only punctuation and spaces; prose in
 * Arabic or Hebrew needs them, a file name never does.
 */
const BIDI_FORMATTING_AND_MARKS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** Text as written, without embeddings, overrides or isolates; the marks prose needs are kept. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_FORMATTING, "");
}

/** A file name as shown: no bidi control of any kind, marks included. */
export function displayFilename(name: string): string {
  return name.replace(BIDI_FORMATTING_AND_MARKS, "");
}
