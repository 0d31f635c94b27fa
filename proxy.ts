import { createHash, randomBytes } from "node:crypto";
import { type NextRequest, NextResponse } from "next/server";
import { THEME_SCRIPT } from "@/components/preferences/theme-script";
import { contentSecurityPolicy } from "@/lib/http/security-headers";

// The layout's inline theme script runs before the first paint, so it is allowed by its hash.
const THEME_SCRIPT_HASH = createHash("sha256").update(THEME_SCRIPT).digest("base64");

/**
 * Every page gets a Content-Security-Policy with a fresh nonce. Next.js finds the nonce in the
 * request's copy of the header and puts it on the scripts it renders; the browser gets the same
 * header on the response. Pages are rendered per request already (the layout reads cookies).
 */
export function proxy(request: NextRequest) {
  const policy = contentSecurityPolicy({
    nonce: randomBytes(16).toString("base64"),
    inlineScriptHashes: [THEME_SCRIPT_HASH],
    development: process.env.NODE_ENV === "development",
  });
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: API responses are JSON, event streams and file downloads (which carry their own
      // sandboxing policy); static files run nothing. Prefetches are not documents.
      source: "/((?!api/|_next/static|_next/image|icon.svg|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
