import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Continuation tokens (their footer is `page-info.ts`). A token is base64url of ASCII-only JSON
 * carrying the cursor, the issue time and a short HMAC, so only tokens this server issued,
 * unaltered and fresh, are accepted. The model copies them verbatim; it never reads them.
 */

export const TOKEN_VERSION = 2;
const MAC_CHARS = 16;

export type TokenFields = Record<string, unknown> & { tool: string };
export type TokenPayload = TokenFields & { v: number; iat: number };

export class InvalidTokenError extends Error {
  constructor(reason: string) {
    super(`Invalid continuation token: ${reason}`);
    this.name = "InvalidTokenError";
  }
}

/** JSON with every non-ASCII character escaped, so a token survives any copy. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function mac(secret: Buffer, body: string): string {
  return createHmac("sha256", secret).update(body).digest("base64url").slice(0, MAC_CHARS);
}

/** Signs any payload as-is (tests use it to build well-signed tokens with bad contents). */
export function signToken(payload: Record<string, unknown>, secret: Buffer): string {
  return Buffer.from(asciiJson({ ...payload, mac: mac(secret, asciiJson(payload)) }), "utf8").toString("base64url");
}

export function makeToken(fields: TokenFields, secret: Buffer, now = Date.now()): string {
  return signToken({ v: TOKEN_VERSION, ...fields, iat: Math.floor(now / 1000) }, secret);
}

export interface ParseTokenOptions {
  tool: string;
  required: string[];
  secret: Buffer;
  ttlSeconds: number;
  now?: number;
}

/** Checks encoding, MAC, version, tool, required fields and age; throws InvalidTokenError with the reason. */
export function parseToken(token: string, options: ParseTokenOptions): TokenPayload {
  const trimmed = token.trim();
  if (!trimmed) throw new InvalidTokenError("empty token");
  if (!/^[A-Za-z0-9_-]+$/.test(trimmed)) throw new InvalidTokenError("not a token issued by this tool");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(trimmed, "base64url").toString("utf8"));
  } catch {
    throw new InvalidTokenError("malformed or truncated token; copy next_token exactly");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidTokenError("malformed token");
  }
  const { mac: given, ...payload } = parsed as Record<string, unknown>;
  if (typeof given !== "string" || given.length !== MAC_CHARS) {
    throw new InvalidTokenError("missing signature; use a next_token returned by the tool");
  }
  const expected = mac(options.secret, asciiJson(payload));
  if (!timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
    throw new InvalidTokenError("signature mismatch; the token was altered or not issued by this server");
  }
  if (payload.v !== TOKEN_VERSION) throw new InvalidTokenError(`unsupported version ${String(payload.v)}`);
  if (payload.tool !== options.tool) {
    throw new InvalidTokenError(`token belongs to ${String(payload.tool)}, not ${options.tool}`);
  }
  for (const field of ["iat", ...options.required]) {
    if (payload[field] === undefined || payload[field] === null) {
      throw new InvalidTokenError(`missing field ${field}`);
    }
  }
  const ageSeconds = Math.floor((options.now ?? Date.now()) / 1000) - Number(payload.iat);
  if (!Number.isFinite(ageSeconds) || ageSeconds < -60) throw new InvalidTokenError("issued in the future");
  if (ageSeconds > options.ttlSeconds) {
    throw new InvalidTokenError("expired; call the tool again without continue_from");
  }
  return payload as TokenPayload;
}
