import "server-only";
import type { z } from "zod";
import { databaseBusyError, isDatabaseBusy } from "@/lib/db/busy";
import { AppError, isAbortError } from "@/lib/errors";
import { contentDisposition } from "@/lib/files/sniff";
import { readBodyLimited } from "./body";

/** Every error is `{"error": {"code", "message"}}` with a fitting status. */
export function errorResponse(caught: unknown): Response {
  let error = caught;
  if (isDatabaseBusy(caught)) {
    console.warn("[api] database busy:", caught instanceof Error ? caught.message : caught);
    error = databaseBusyError(caught);
  }
  if (error instanceof AppError) {
    const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
    const body = {
      code: error.code,
      message: error.message,
      ...(error.retryable ? { retryable: true } : {}),
      ...(error.details ? { details: error.details } : {}),
    };
    return Response.json(
      { error: body },
      { status: error.status, headers: retryAfter ? { "Retry-After": String(retryAfter) } : undefined },
    );
  }
  if (isAbortError(error)) {
    return Response.json({ error: { code: "aborted", message: "The request was aborted." } }, { status: 499 });
  }
  console.error("[api] unexpected error", error);
  return Response.json({ error: { code: "internal", message: "Internal server error." } }, { status: 500 });
}

/** Wraps a route handler so thrown errors become the error responses of docs/api.md, "Requests and errors". */
export function route<Args extends unknown[]>(
  handler: (...args: Args) => Promise<Response>,
): (...args: Args) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

function validationError(issues: z.core.$ZodIssue[]): AppError {
  const first = issues[0];
  const where = first?.path.length ? `${first.path.join(".")}: ` : "";
  return new AppError("bad_request:validation", `Invalid request: ${where}${first?.message ?? "invalid input"}`, {
    details: { issues },
  });
}

/** Parses a JSON body once at the edge; malformed JSON and schema failures are 400s. */
export async function parseJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  { maxBytes = 64 * 1024 }: { maxBytes?: number } = {},
): Promise<z.infer<Schema>> {
  const text = (await readBodyLimited(request, maxBytes)).toString("utf8");
  if (!text.trim()) throw new AppError("bad_request:empty_body", "Request body is empty; expected JSON.");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("bad_request:malformed_json", "Request body is not valid JSON.");
  }
  const result = schema.safeParse(body);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

/** A stored file's bytes, always as a download: never rendered inline from our origin. */
export function fileDownload(file: { bytes: Buffer; mime: string; size: number; filename: string }): Response {
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      "Content-Type": file.mime.split(";")[0] || "application/octet-stream",
      "Content-Length": String(file.size),
      "Content-Disposition": contentDisposition(file.filename),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, max-age=0",
    },
  });
}
