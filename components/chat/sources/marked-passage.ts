/** A cited passage cut into pieces, the claim's matched terms marked (docs/research.md, "Checking citations"). */

export interface PassagePiece {
  text: string;
  marked: boolean;
}

const literal = (term: string) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Every occurrence of a matched term is marked, case aside; where terms overlap the longer wins.
 * The pieces joined give the passage back unchanged.
 */
export function markedPieces(text: string, matched: readonly string[]): PassagePiece[] {
  const terms = [...new Set(matched.map((term) => term.trim()).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (terms.length === 0 || !text) return text ? [{ text, marked: false }] : [];
  const pattern = new RegExp(terms.map(literal).join("|"), "giu");
  const pieces: PassagePiece[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) pieces.push({ text: text.slice(last, match.index), marked: false });
    pieces.push({ text: match[0], marked: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), marked: false });
  return pieces;
}
