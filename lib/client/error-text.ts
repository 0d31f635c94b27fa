/**
 * Every error the user sees, in the UI's language: the server sends a code (`kind:name`), an English
 * message and `details`; the browser words it from `errors.<kind>.<name>` in messages/*.json with
 * the details as parameters. HTTP answers, run events and pull lines all go through `describeError`.
 * A code without a message of its own, or whose message needs a detail the error does not carry, is
 * the generic `errors.unknown` with the server's English message as its detail — never a raw code.
 */
import { type ErrorCode, isErrorCode } from "@/lib/protocol/error-codes";
import { formatBytes } from "./format";

/** An error as the browser receives it: an `ApiError`, a run's `error` event, a pull's error line. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/** The part of a use-intl translator for the `errors` namespace that this needs. */
export interface ErrorTranslator {
  (key: string, values?: Record<string, string | number>): string;
  has(key: string): boolean;
  raw(key: string): unknown;
}

/** Where a code's message lives under `errors`: `not_found:model` → `not_found.model`, `internal` → `internal.default`. */
export function errorKey(code: ErrorCode): string {
  const [kind, ...name] = code.split(":");
  return `${kind}.${name.length > 0 ? name.join("_") : "default"}`;
}

/** The arguments an ICU message refers to (`{model}`, `{count, plural, …}`); plural branches (`{# …}`) are none. */
function messageArguments(message: string): string[] {
  return [...message.matchAll(/\{\s*([A-Za-z_]\w*)\s*[,}]/g)].map((match) => match[1] as string);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The details as message parameters: strings and numbers as they are, null as "" (none), a list of
 * names joined, and derived forms a sentence needs — `<x>Size` for a byte count `<x>Bytes`,
 * `retryAfter` for `retryAfterSeconds` as a duration.
 */
function parameters(details: unknown, locale: string): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  if (!isRecord(details)) return values;
  for (const [key, value] of Object.entries(details)) {
    if (typeof value === "string" || typeof value === "number") values[key] = value;
    else if (value === null) values[key] = "";
    else if (Array.isArray(value) && value.every((item) => typeof item === "string")) values[key] = value.join(", ");
    if (typeof value === "number" && key.endsWith("Bytes")) values[`${key.slice(0, -5)}Size`] = formatBytes(value);
  }
  if (typeof values.retryAfterSeconds === "number") values.retryAfter = duration(values.retryAfterSeconds, locale);
  return values;
}

/** "45 seconds", "15 minutes", "2 hours" in the UI's language. */
function duration(seconds: number, locale: string): string {
  const [value, unit] =
    seconds < 90
      ? [seconds, "second"]
      : seconds < 90 * 60
        ? [Math.ceil(seconds / 60), "minute"]
        : [Math.ceil(seconds / 3600), "hour"];
  return new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "long" }).format(value);
}

/**
 * A refused field (`bad_request:validation`) in words: the first zod issue's field and rule
 * (`validation.too_long`: "The title can be at most 200 characters"), else null.
 */
function validationText(details: unknown, t: ErrorTranslator): string | null {
  const issue = isRecord(details) && Array.isArray(details.issues) ? details.issues[0] : undefined;
  if (!isRecord(issue) || !Array.isArray(issue.path)) return null;
  const names = issue.path.filter((part): part is string => typeof part === "string");
  const name = names.at(-1);
  if (!name) return null;
  const field = t.has(`fields.${name}`) ? t(`fields.${name}`) : names.join(".");
  const text = issue.origin === "string" ? "string" : "other";
  if (issue.code === "too_big" && typeof issue.maximum === "number") {
    return t(`validation.too_big_${text}`, { field, maximum: issue.maximum });
  }
  if (issue.code === "too_small" && typeof issue.minimum === "number") {
    return t(`validation.too_small_${text}`, { field, minimum: issue.minimum });
  }
  return t("validation.invalid", { field });
}

/** The error in the UI's language (`t` is the `errors` namespace's translator, `locale` the UI's). */
export function describeError(error: ErrorInfo, t: ErrorTranslator, locale: string): string {
  if (error.code === "bad_request:validation") {
    const text = validationText(error.details, t);
    if (text) return text;
  }
  const key = errorKey(error.code);
  const values = { ...parameters(error.details, locale), detail: error.message };
  const raw = t.has(key) ? t.raw(key) : undefined;
  if (typeof raw === "string" && messageArguments(raw).every((name) => name in values)) return t(key, values);
  return t("unknown", { detail: error.message });
}

/**
 * Anything caught, as an `ErrorInfo`: a coded error as it is (`client:unknown_code` when its code is
 * not the catalogue's), anything else (a bug, a string) as `client:failed`.
 */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (isRecord(error) && typeof error.code === "string" && typeof error.message === "string") {
    const code = isErrorCode(error.code) ? error.code : "client:unknown_code";
    return { code, message: error.message, details: error.details };
  }
  return { code: "client:failed", message: error instanceof Error ? error.message : String(error) };
}
