/**
 * How the browser calls the app's HTTP API: every failure becomes an `ApiError`, a 401 goes to the
 * sign-in page. The resource modules beside this one (`conversations.ts`, `runs.ts`, …) know the
 * URLs and take bodies typed from the routes' own zod schemas; `index.ts` joins them into `api`.
 */
import { type ErrorCode, isErrorCode } from "@/lib/protocol/error-codes";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** The error's `details`, when the server gave any (e.g. the names an import would overwrite). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Turns a non-2xx response into an `ApiError` carrying the server's `{error: {code, message, details}}`. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  return errorFromBody(response.status, await response.text().catch(() => ""));
}

/** A failed answer's body as an `ApiError`; one that is not the server's error shape (a proxy's page) by its status. */
export function errorFromBody(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: string; details?: unknown } };
    if (body.error?.message) {
      // A code this page does not know is worded as an unknown one, with the server's message.
      const code = isErrorCode(body.error.code) ? body.error.code : "client:unknown_code";
      return new ApiError(status, code, body.error.message, body.error.details);
    }
  } catch {
    // not JSON: fall through to a generic message
  }
  if (status === 413) return new ApiError(413, "payload_too_large", "The server refused this as too large.");
  return new ApiError(status, "client:http", `Request failed (HTTP ${status}).`, { status });
}

/** The browser could not reach the server at all. */
export const unreachable = () =>
  new ApiError(0, "client:network", "Cannot reach the ollama-web server. Is it running?");

/** Anything caught as an `ApiError`: a bug or a string becomes `client:failed` with its text. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError
    ? error
    : new ApiError(0, "client:failed", error instanceof Error ? error.message : String(error));
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/**
 * A 401 means the session is gone (signed out elsewhere, expired): go to the sign-in page and come
 * back here afterwards. The auth routes answer 401 for a wrong password; those are not redirected.
 */
function onUnauthorized(path: string, response: Response): void {
  if (response.status !== 401 || path.startsWith("/api/auth/") || typeof window === "undefined") return;
  if (window.location.pathname === "/login") return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/login?next=${encodeURIComponent(here)}`);
}

/** A JSON call: the parsed answer (nothing for a 204), or the `ApiError` the server's error carries. */
export async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      headers: init?.body ? { "Content-Type": "application/json", ...init.headers } : init?.headers,
    });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw unreachable();
  }
  if (!response.ok) {
    onUnauthorized(path, response);
    throw await errorFromResponse(response);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A streamed answer (SSE, NDJSON): its body once the server accepted the request. */
export async function openStream(path: string, init: RequestInit): Promise<ReadableStream<Uint8Array>> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw unreachable();
  }
  if (!response.ok || !response.body) {
    onUnauthorized(path, response);
    throw await errorFromResponse(response);
  }
  return response.body;
}

/** A JSON body: the value sent with `request`'s `init`. */
export const jsonBody = (method: "POST" | "PATCH", body: unknown): RequestInit => ({
  method,
  body: JSON.stringify(body),
});
