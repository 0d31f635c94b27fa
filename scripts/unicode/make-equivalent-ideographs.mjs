// Writes lib/tools/pdf/equivalent-ideographs.ts from Unicode's EquivalentUnifiedIdeograph.txt (Debian's
// unicode-data package installs it under /usr/share/unicode): the CJK Radicals Supplement entries only.
// Run: node scripts/unicode/make-equivalent-ideographs.mjs [path to EquivalentUnifiedIdeograph.txt]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const source = process.argv[2] ?? "/usr/share/unicode/EquivalentUnifiedIdeograph.txt";
const text = fs.readFileSync(source, "utf8");
const version = /^# (EquivalentUnifiedIdeograph-[\d.]+\.txt)/m.exec(text)?.[1] ?? "EquivalentUnifiedIdeograph.txt";
const date = /^# Date: ([^\n]+)/m.exec(text)?.[1] ?? "";
const rows = [];
for (const line of text.split("\n")) {
  const match = /^([0-9A-F]{4,6})(?:\.\.([0-9A-F]{4,6}))?\s*;\s*([0-9A-F]{4,6})/.exec(line);
  if (!match) continue;
  const from = Number.parseInt(match[1], 16);
  const to = Number.parseInt(match[2] ?? match[1], 16);
  if (from < 0x2e80 || to > 0x2eff) continue;
  const hex = (n) => `0x${n.toString(16)}`;
  rows.push(`  [${hex(from)}, ${hex(to)}, ${hex(Number.parseInt(match[3], 16))}], // ${line.split("#")[1]?.trim()}`);
}
const out = `/**
 * CJK Radicals Supplement (U+2E80–U+2EFF) → the unified ideograph each one stands for, as
 * [first, last, ideograph] ranges: the entries in that block of Unicode's
 * ${version} (${date}),
 * written by scripts/unicode/make-equivalent-ideographs.mjs.
 * NFKC maps only two of them (⺟, ⻳); fonts map many more glyphs to them (⻑ for 長, ⻩ for 黄).
 */
export const RADICALS_SUPPLEMENT_IDEOGRAPHS: readonly (readonly [number, number, number])[] = [
${rows.join("\n")}
];
`;
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
fs.writeFileSync(path.join(root, "lib", "tools", "pdf", "equivalent-ideographs.ts"), out);
console.log(`${rows.length} ranges from ${version}`);
