/**
 * Which check of an answer's citation report a drawn `[n]` chip shows (docs/research.md, "Checking
 * citations"). A check names where its sentence lies in the stored answer (`start`..`end`); the chip
 * knows where its marker lies in the text drawn, which is the answer after the display rewrites
 * (attachment links, bidi controls, TeX delimiters). Those rewrites neither add nor drop `[n]`, so the
 * k-th marker drawn is the k-th marker of the answer: its offset there is what the check's range holds.
 */
import type { CitationCheck, CitationReport, CitationVerdict } from "@/lib/protocol/citations";

const MARKER = /\[(\d{1,4})\]/g;

interface Marker {
  n: number;
  offset: number;
}

function markersOf(text: string): Marker[] {
  return [...text.matchAll(MARKER)].map((match) => ({ n: Number(match[1]), offset: match.index }));
}

/** Finds the check of the marker `[n]` drawn at `offset` of the drawn text, or null (no check: drawn as before). */
export type CheckLookup = (offset: number, n: number) => CitationCheck | null;

export function citationLookup(report: CitationReport, answer: string, drawn: string): CheckLookup {
  const stored = markersOf(answer);
  const shown = markersOf(drawn);
  const aligned = stored.length === shown.length && stored.every((marker, i) => marker.n === shown[i]?.n);
  /** The stored place of the drawn marker nearest `offset` (the parser's offsets can drift by an escape), if it is an `[n]`. */
  const storedOffset = (offset: number, n: number): number | null => {
    if (!aligned) return offset;
    let best = -1;
    for (let i = 0; i < shown.length; i++) {
      const distance = Math.abs((shown[i] as Marker).offset - offset);
      if (best === -1 || distance < Math.abs((shown[best] as Marker).offset - offset)) best = i;
    }
    return best !== -1 && shown[best]?.n === n ? (stored[best] as Marker).offset : null;
  };
  return (offset, n) => {
    const at = storedOffset(offset, n);
    if (at === null) return null;
    return report.checks.find((check) => check.n === n && check.start <= at && at < check.end) ?? null;
  };
}

/** How a chip is coloured: by its check's verdict; `not_found` looks like `unsupported` (nothing holds the claim). */
export type ChipTone = "supported" | "partly" | "unsupported" | "found";

export function chipTone(verdict: CitationVerdict): ChipTone {
  return verdict === "not_found" ? "unsupported" : verdict;
}
