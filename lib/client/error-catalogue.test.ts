import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import { errorKey } from "./error-text";

const root = path.resolve(__dirname, "../..");

/** Every error code written in the source: `"kind:name"` or a bare kind, as the server and the browser make them. */
const CODE =
  /["'`]((?:bad_request|unauthorized|forbidden|not_found|conflict|payload_too_large|unsupported_media_type|rate_limited|upstream|unavailable|internal|client|aborted)(?::[a-z0-9_]+)?)["'`]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function codesInSource(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of ["lib", "app", "components"].flatMap(sourceFiles)) {
    for (const match of readFileSync(file, "utf8").matchAll(CODE)) {
      codes.set(match[1] as string, path.relative(root, file));
    }
  }
  return codes;
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

describe("error messages", () => {
  const codes = codesInSource();

  it("finds the codes it checks (the scan itself works)", () => {
    expect(codes.get("unauthorized:credentials")).toBe("app/api/auth/login/route.ts");
    expect(codes.has("not_found:account")).toBe(true);
    expect(codes.has("client:network")).toBe(true);
  });

  it.each(["en", "ja"] as const)("every error code in lib, app and components has a %s message", (locale) => {
    const messages = leaves({ en, ja }[locale].errors);
    const missing = [...codes]
      .filter(([code]) => !messages.has(errorKey(code)))
      .map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

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
