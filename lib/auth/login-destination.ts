/**
 * Where the sign-in page sends the user afterwards (`/login?next=…`): a path of this app, never
 * another site. Shared by browser and server (no server-only imports).
 *
 * The value is parsed as a URL against the app's own origin, the way the browser will resolve it,
 * so every trick that turns a path into another host (`//host`, `/\host`, tabs and newlines that
 * the URL parser drops, `javascript:`) shows up as a different origin. Percent-encoded forms are
 * decoded and checked again, in case something downstream decodes once more.
 */

const FALLBACK = "/";
const MAX_DECODE_ROUNDS = 3;

function sameOriginPath(candidate: string, origin: string): URL | null {
  if (!candidate.startsWith("/")) return null;
  let url: URL;
  try {
    url = new URL(candidate, origin);
  } catch {
    return null;
  }
  return url.origin === origin ? url : null;
}

export function loginDestination(next: string | null | undefined, origin: string): string {
  if (!next) return FALLBACK;
  const url = sameOriginPath(next, origin);
  if (!url || url.pathname === "/login" || url.pathname.startsWith("/login/")) return FALLBACK;
  let decoded = next;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    let once: string;
    try {
      once = decodeURIComponent(decoded);
    } catch {
      return FALLBACK;
    }
    if (once === decoded) break;
    if (!sameOriginPath(once, origin)) return FALLBACK;
    decoded = once;
  }
  return `${url.pathname}${url.search}${url.hash}`;
}
