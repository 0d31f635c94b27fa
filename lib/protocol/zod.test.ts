import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "./zod";

/** Counts `new Function(…)` while `action` runs: zod's eval probe and its compiled parsers both do it. */
function functionsConstructedDuring(action: () => void): number {
  const RealFunction = globalThis.Function;
  let constructed = 0;
  globalThis.Function = new Proxy(RealFunction, {
    construct(target, args) {
      constructed++;
      return Reflect.construct(target, args);
    },
  });
  try {
    action();
  } finally {
    globalThis.Function = RealFunction;
  }
  return constructed;
}

/** The folders and modules the browser's bundle may import as values (lint/browser-value-imports.grit). */
const BROWSER_MODULES = [
  "lib/protocol",
  "lib/client",
  "lib/text",
  "components",
  "lib/chat-settings.ts",
  "lib/llm/model-roles.ts",
  "lib/llm/model-replacement.ts",
  "lib/tools/page-info.ts",
  "lib/mcp/types.ts",
  "lib/auth/login-destination.ts",
];

function sourceFiles(entry: string): string[] {
  if (!fs.statSync(entry).isDirectory()) return [entry];
  return fs
    .readdirSync(entry, { withFileTypes: true })
    .flatMap((item) => sourceFiles(path.join(entry, item.name)))
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file));
}

describe("zod in the browser runs without eval (docs/security.md, 'Answers in the browser')", () => {
  it("an object schema built with lib/protocol/zod parses without constructing a Function, which the page's policy would report", () => {
    const schema = z.object({ event: z.string(), data: z.object({ status: z.literal("start") }) });
    const constructed = functionsConstructedDuring(() => {
      expect(schema.safeParse({ event: "answer", data: { status: "start" } }).success).toBe(true);
      expect(schema.safeParse({ event: "answer", data: { status: "done" } }).success).toBe(false);
    });
    expect(constructed).toBe(0);
  });

  it("every module the browser may import takes z from lib/protocol/zod, never from zod itself", () => {
    const offenders = BROWSER_MODULES.flatMap(sourceFiles).filter(
      (file) =>
        file !== path.join("lib", "protocol", "zod.ts") &&
        /^import\s+(?!type\b)[^;]*from\s+"zod(\/[^"]*)?"/m.test(fs.readFileSync(file, "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});
