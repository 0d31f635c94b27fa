import { UNSAFE_FILENAME_CHARS } from "@/lib/files/sniff";

/**
 * File names for exports, from the conversation's title: `name` keeps its letters (Japanese
 * included) for `filename*` and ZIP entries; `ascii` is the plain fallback for `filename`, or
 * "conversation" when the title has no ASCII letters to keep.
 */
export function exportFilename(title: string, extension: string): { name: string; ascii: string } {
  const clean = title
    .normalize("NFC")
    .replace(UNSAFE_FILENAME_CHARS, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+/, "")
    .slice(0, 100)
    .trim();
  const ascii = clean
    .replace(/[^\x20-\x7e]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+/, "");
  return {
    name: `${clean || "conversation"}.${extension}`,
    ascii: `${/[A-Za-z0-9]/.test(ascii) ? ascii : "conversation"}.${extension}`,
  };
}
