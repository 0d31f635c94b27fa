import type { ToolError } from "./outcome";
import { FetchError } from "./safe-http";

/**
 * A fetch failure as the tools report it: `Invalid URL.`, `Blocked URL: <url> (<reason>)` or
 * `Failed to fetch <url>: <reason>`, with its kind.
 */
export function fetchFailure(error: unknown, url: string): ToolError {
  if (error instanceof FetchError) {
    if (error.kind === "invalid_url") return { kind: "invalid_url", message: "Invalid URL." };
    if (error.kind === "blocked")
      return { kind: "blocked_url", message: `Blocked URL: ${error.url || url} (${error.message})` };
    return {
      kind: error.tooLarge ? "too_large" : "fetch_failed",
      message: `Failed to fetch ${error.url || url}: ${error.message}`,
    };
  }
  return {
    kind: "fetch_failed",
    message: `Failed to fetch ${url}: ${error instanceof Error ? error.message : String(error)}`,
  };
}

const MEDIA = /^(image|audio|video)\//;

export function isMediaType(mime: string): boolean {
  return MEDIA.test(mime);
}
