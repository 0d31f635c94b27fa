/**
 * What a browser may do with this app's pages (see docs/security.md). The point is that nothing a
 * model writes can make the page talk to another host: images, fonts, media, fetches, frames and
 * forms stay on this origin, and only scripts this server handed out (by nonce or by hash) run.
 */

/** Headers for every response, pages and API alike (next.config.ts). */
export const SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Never "no-referrer": it makes the browser send `Origin: null` on the app's own POSTs, which the
  // cross-site check refuses. "same-origin" keeps conversation URLs from reaching other sites.
  { key: "Referrer-Policy", value: "same-origin" },
  // For browsers without CSP frame-ancestors.
  { key: "X-Frame-Options", value: "DENY" },
];

/**
 * The Content-Security-Policy of a page. `nonce` is fresh per request: Next.js reads it back from
 * the request's header and puts it on its own scripts and styles. `inlineScriptHashes` allow the
 * few constant inline scripts of the layout (the theme script) without a nonce. Development needs
 * eval (React's error overlay) and unnamed inline styles (the dev overlay); production needs neither.
 */
export function contentSecurityPolicy({
  nonce,
  inlineScriptHashes,
  development,
}: {
  nonce: string;
  inlineScriptHashes: readonly string[];
  development: boolean;
}): string {
  const hashes = inlineScriptHashes.map((hash) => `'sha256-${hash}'`);
  const evalInDevelopment = development ? ["'unsafe-eval'"] : [];
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    // 'strict-dynamic': scripts a trusted script loads (Next.js chunks) are trusted; host lists are ignored.
    ["script-src", "'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...hashes, ...evalInDevelopment],
    ["style-src", "'self'", development ? "'unsafe-inline'" : `'nonce-${nonce}'`],
    // style="" attributes (React server-renders some) cannot load anything: url() obeys img-src and font-src.
    ["style-src-attr", "'unsafe-inline'"],
    // No remote images: an image URL with the conversation in it must not load without a click.
    ["img-src", "'self'", "data:", "blob:"],
    ["font-src", "'self'", "data:"],
    ["connect-src", "'self'"],
    ["media-src", "'self'", "blob:"],
    ["object-src", "'none'"],
    ["base-uri", "'none'"],
    ["form-action", "'self'"],
    ["frame-ancestors", "'none'"],
    // No upgrade-insecure-requests: the app is often served over plain HTTP on a LAN, and upgrading
    // its own requests to https would break every page there.
  ];
  return directives.map((directive) => directive.join(" ")).join("; ");
}
