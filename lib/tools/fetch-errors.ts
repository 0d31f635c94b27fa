import { FetchError } from "./safe-http";

/** The error strings of SPEC §11, from a fetch failure: `Invalid URL.`, `Blocked URL: <url>`, `Failed to fetch <url>: <reason>`. */
export function fetchErrorMessage(error: unknown, url: string): string {
  if (error instanceof FetchError) {
    if (error.kind === "invalid_url") return "Invalid URL.";
    if (error.kind === "blocked") return `Blocked URL: ${error.url || url} (${error.message})`;
    return `Failed to fetch ${error.url || url}: ${error.message}`;
  }
  return `Failed to fetch ${url}: ${error instanceof Error ? error.message : String(error)}`;
}

const MEDIA = /^(image|audio|video)\//;

export function isMediaType(mime: string): boolean {
  return MEDIA.test(mime);
}
