/**
 * The one error `fetchPublic` throws for anything but the caller's abort. Its message is the reason
 * only ("redirect target is a private address (10.0.0.1)", "response exceeds 10 MB", "HTTP 404");
 * tools turn it into their failure messages (`Invalid URL.`, `Blocked URL: …`, `Failed to fetch …`).
 */
export type FetchErrorKind = "invalid_url" | "blocked" | "failed";

export class FetchError extends Error {
  readonly kind: FetchErrorKind;
  /** The URL of the request that failed: the caller's URL, or the redirect target it failed at ("" if unknown). */
  readonly url: string;
  /** The final HTTP status for "HTTP <status>" failures, else null. */
  readonly status: number | null;
  /** True when the response was refused for its size (declared or counted after decompression). */
  readonly tooLarge: boolean;

  constructor(
    kind: FetchErrorKind,
    message: string,
    options: { url?: string; status?: number; tooLarge?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "FetchError";
    this.kind = kind;
    this.url = options.url ?? "";
    this.status = options.status ?? null;
    this.tooLarge = options.tooLarge ?? false;
  }
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  EPIPE: "connection closed by the server",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EADDRNOTAVAIL: "address not available",
  ERR_STREAM_PREMATURE_CLOSE: "connection closed before the response was complete",
  HPE_INVALID_CONSTANT: "malformed HTTP response",
  HPE_INVALID_TRANSFER_ENCODING: "malformed HTTP response (conflicting Transfer-Encoding and Content-Length)",
  HPE_HEADER_OVERFLOW: "HTTP response headers are too big",
  ERR_INVALID_CHAR: "invalid character in a request header",
  ERR_INVALID_HTTP_TOKEN: "invalid request header name",
};

/** A socket/TLS/parser error as a FetchError("failed"); FetchErrors pass through unchanged. */
export function toFetchError(error: unknown, url: string): FetchError {
  if (error instanceof FetchError) return error;
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  const message = error instanceof Error ? error.message : String(error);
  let reason = NETWORK_REASONS[code];
  if (!reason && /CERT|SSL|TLS|SIGNATURE|VERIFY|ISSUER/.test(code)) {
    reason = `TLS error: ${message}`;
  }
  if (!reason && code.startsWith("HPE_")) reason = `malformed HTTP response: ${message}`;
  return new FetchError("failed", reason ?? (code ? `network error (${code}): ${message}` : message), {
    url,
    cause: error,
  });
}

/** "20 s", "0.25 s": timeouts in the words a user reads. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** "10 MB" for whole mebibytes (MAX_FETCH_MB), else bytes. */
export function sizeLabel(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes} bytes`;
}
