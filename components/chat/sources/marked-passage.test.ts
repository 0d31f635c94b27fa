import { describe, expect, it } from "vitest";
import { markedPieces } from "./marked-passage";

const marked = (text: string, terms: string[]) =>
  markedPieces(text, terms)
    .map((piece) => (piece.marked ? `<${piece.text}>` : piece.text))
    .join("");

describe("the claim's words marked in a passage", () => {
  it("marks every occurrence of each matched term, case aside, and gives the passage back whole", () => {
    expect(marked("Quokkas weigh 2.5 kg. A quokka eats leaves.", ["quokka", "2.5"])).toBe(
      "<Quokka>s weigh <2.5> kg. A <quokka> eats leaves.",
    );
  });

  it("the longer of two overlapping terms wins", () => {
    expect(marked("Rottnest Island is small.", ["Rottnest", "Rottnest Island"])).toBe("<Rottnest Island> is small.");
  });

  it("takes terms as text, not patterns", () => {
    expect(marked("Costs (US$) rose by 3.5%.", ["(US$)", "3.5%"])).toBe("Costs <(US$)> rose by <3.5%>.");
  });

  it("marks Japanese terms", () => {
    expect(marked("クオッカは島に住む。", ["クオッカ"])).toBe("<クオッカ>は島に住む。");
  });

  it("nothing matched: the passage unmarked", () => {
    expect(markedPieces("Plain.", [])).toEqual([{ text: "Plain.", marked: false }]);
  });
});
