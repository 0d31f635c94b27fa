/**
 * The error catalogue and its messages. That every code has a message in both languages is the
 * compiler's check (`./error-messages.ts`); the tests here say the same at run time, and what the
 * compiler cannot: no message is left for a code that is gone, and both languages take the same
 * parameters.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type ErrorCode, errorCatalogue, errorCodes, isErrorCode, isServerErrorCode } from "@/lib/protocol/error-codes";
import { toolErrorKinds } from "@/lib/protocol/tool-failures";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import { errorKey } from "./error-text";

const root = path.resolve(__dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function leaves(messages: unknown, prefix = ""): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(messages as Record<string, unknown>)) {
    if (typeof value === "string") found.set(`${prefix}${key}`, value);
    else for (const [inner, text] of leaves(value, `${prefix}${key}.`)) found.set(inner, text);
  }
  return found;
}

const argumentsOf = (message: string) =>
  [...message.matchAll(/\{\s*([A-Za-z_]\w*)\s*[,}]/g)].map((match) => match[1]).sort();

/** The `errors` keys that are no code's: the generic sentence, validation's wording and field names. */
const NOT_CODES = /^(unknown|validation\..*|fields\..*)$/;

describe("the error catalogue", () => {
  it("is closed: a code it does not list is no error code, for the compiler and at run time", () => {
    // @ts-expect-error a code outside the catalogue does not compile
    const unknown: ErrorCode = "conflict:something_new";
    expect([isErrorCode(unknown), isErrorCode("not_found:conversation"), isErrorCode("conflict")]).toEqual([
      false,
      true,
      true,
    ]);
    // A kind's `default` is its bare code; the browser's own codes are never the server's.
    expect(errorCodes).toContain("internal");
    expect(errorCodes).not.toContain("internal:default");
    expect([isServerErrorCode("client:network"), isServerErrorCode("aborted"), isServerErrorCode("upstream")]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it.each(["en", "ja"] as const)("has a %s message for every code, and no message for a code it lacks", (locale) => {
    const messages = leaves({ en, ja }[locale].errors);
    expect(errorCodes.filter((code) => !messages.has(errorKey(code)))).toEqual([]);
    const keys = new Set(errorCodes.map(errorKey));
    expect([...messages.keys()].filter((key) => !NOT_CODES.test(key) && !keys.has(key))).toEqual([]);
  });

  it("groups every code under its kind, each name once", () => {
    for (const [kind, names] of Object.entries(errorCatalogue)) {
      expect([kind, new Set(names).size]).toEqual([kind, names.length]);
    }
  });

  it.each(["en", "ja"] as const)("has a %s label for every kind of tool failure", (locale) => {
    const labels = { en, ja }[locale].tools.failure as Record<string, string>;
    expect(toolErrorKinds.filter((kind) => !labels[kind])).toEqual([]);
    expect(Object.keys(labels).sort()).toEqual([...toolErrorKinds].sort());
  });
});

describe("error messages", () => {
  it("components word errors through useErrorText, never showing an error's own (English) message", () => {
    const raw = /instanceof Error \? \w+\.message|\berror\.message\b|\bfailure\.message\b/;
    const offenders = sourceFiles("components").filter((file) => raw.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => path.relative(root, file))).toEqual([]);
  });

  it("the English and Japanese error messages have the same keys and take the same parameters", () => {
    const english = leaves(en.errors);
    const japanese = leaves(ja.errors);
    expect([...japanese.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [key, text] of english)
      expect([key, argumentsOf(japanese.get(key) ?? "")]).toEqual([key, argumentsOf(text)]);
  });
});
