/**
 * One error type for everything a user or client can act on. The code's first part picks the
 * HTTP status (in one place, `AppError.status`); the second names the thing ("not_found:conversation").
 */
export type ErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "upstream"
  | "unavailable"
  | "internal";

const statusByKind: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};

export type ErrorCode = `${ErrorKind}:${string}` | ErrorKind;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryable: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: unknown; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  get kind(): ErrorKind {
    return this.code.split(":")[0] as ErrorKind;
  }

  get status(): number {
    return statusByKind[this.kind];
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "ResponseAborted");
}
