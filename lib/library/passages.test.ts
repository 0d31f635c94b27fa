import { describe, expect, it } from "vitest";
import { cutPassages, PASSAGE_CHARS, pdfPassages } from "./passages";

/** The library's passages (docs/architecture.md, "The library index"). */

const covered = (text: string, passages: { text: string; start: number }[]) =>
  passages.every((passage) => text.slice(passage.start, passage.start + passage.text.length) === passage.text);

describe("cutting a text into passages", () => {
  it("keeps every passage at its place in the text and loses no non-blank character", () => {
    const text = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}. ${"word ".repeat(40)}`).join("\n\n");
    const passages = cutPassages(text);
    expect(covered(text, passages)).toBe(true);
    expect(passages.map((passage) => passage.text).join("")).toBe(text);
    expect(passages.every((passage) => passage.text.length <= PASSAGE_CHARS)).toBe(true);
  });

  it("ends a passage where a paragraph ends when one is in reach", () => {
    const first = "a".repeat(900);
    const text = `${first}\n\n${"b ".repeat(600)}`;
    expect(cutPassages(text)[0]?.text).toBe(`${first}\n\n`);
  });

  it("cuts Japanese, which has no spaces, after a sentence's 。", () => {
    const sentence = "吾輩は猫である。名前はまだ無い。";
    const text = sentence.repeat(200);
    const passages = cutPassages(text);
    expect(passages.length).toBeGreaterThan(1);
    expect(passages.slice(0, -1).every((passage) => passage.text.endsWith("。"))).toBe(true);
    expect(passages.map((passage) => passage.text).join("")).toBe(text);
  });

  it("never splits a surrogate pair, even in one long run without breaks", () => {
    const text = "😀".repeat(2000);
    for (const passage of cutPassages(text)) expect(passage.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });

  it("leaves out passages of whitespace only", () => {
    expect(cutPassages("   \n\n  ")).toEqual([]);
  });

  it("cuts a PDF page by page: no passage spans two pages, each knows its page and place", () => {
    const pages = ["First page text.\n\n", `${"second ".repeat(300)}\n\n`, "Last page."];
    const passages = pdfPassages(pages);
    const whole = pages.join("");
    expect(covered(whole, passages)).toBe(true);
    expect(passages[0]).toMatchObject({ page: 1, start: 0 });
    expect(passages.filter((passage) => passage.page === 2).length).toBeGreaterThan(1);
    expect(passages.at(-1)).toMatchObject({ page: 3, text: "Last page.", start: whole.indexOf("Last page.") });
  });
});
