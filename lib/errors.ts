/**
 * One error type for everything a user or client can act on. Its code is one of the catalogue's
 * (`lib/protocol/error-codes.ts`); the code's first part picks the HTTP status (in one place,
 * `AppError.status`), the second names the thing ("not_found:conversation").
 */
import { type ErrorCode, kindOf, type ServerErrorCode, type ServerErrorKind } from "@/lib/protocol/error-codes";

export type { ErrorCode, ServerErrorCode };
export type ErrorKind = ServerErrorKind;

const statusByKind: Record<ServerErrorKind, number> = {
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

/** Marks an AppError whichever copy of this module made it. */
const APP_ERROR = Symbol.for("ollama-web.AppError");

export class AppError extends Error {
  /**
   * Next.js bundles the server's start (instrumentation.ts, which starts the app instance's cluster)
   * apart from the routes, so this module may be loaded twice: an AppError from one copy, thrown
   * through the other (an owner's verdict relayed by the cluster), is still one.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && APP_ERROR in value;
  }

  readonly [APP_ERROR] = true;
  readonly code: ServerErrorCode;
  readonly details?: unknown;
  readonly retryable: boolean;

  constructor(
    code: ServerErrorCode,
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
    return kindOf(this.code) as ServerErrorKind;
  }

  get status(): number {
    return statusByKind[this.kind];
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "ResponseAborted");
}
