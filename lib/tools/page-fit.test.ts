import { describe, expect, it } from "vitest";
import { renderObservation } from "./outcome";
import { fitPage, pageEnd, sliceText } from "./page-fit";
import { formatPageInfo } from "./page-info";

/** Every page from the start, as `sliceText` cuts them. */
function pages(text: string, length: number): string[] {
  const out: string[] = [];
  for (let start = 0; start < text.length; start += out.at(-1)?.length ?? 0) {
    out.push(sliceText(text, start, length));
    if (out.length > text.length) throw new Error("paging does not advance");
  }
  return out;
}

describe("page cuts", () => {
  it("a page ends after the last line break in its final 15 %", () => {
    const text = `${"a".repeat(88)}\n${"b".repeat(5)} ${"c".repeat(50)}`;
    expect(sliceText(text, 0, 100)).toBe(`${"a".repeat(88)}\n`);
  });

  it("else after the last space in its final 15 %", () => {
    expect(sliceText("The quick brown fox jumps over the lazy dog again", 0, 42)).toBe(
      "The quick brown fox jumps over the lazy ",
    );
  });

  it("a break before the final 15 % is not taken: the page stays nearly full", () => {
    const text = `${"a".repeat(10)} ${"b".repeat(200)}`;
    expect(sliceText(text, 0, 100)).toHaveLength(100);
  });

  it("spaceless Japanese ends after the last 。 or 、 in the final 15 %, else at the limit", () => {
    const sentence = "広い門の下には、この男のほかに誰もいない。ただ、所々丹塗の剥げた";
    expect(sliceText(sentence, 0, 22)).toBe("広い門の下には、この男のほかに誰もいない。");
    expect(sliceText(`${"あ".repeat(18)}、${"い".repeat(5)}`, 0, 20)).toBe(`${"あ".repeat(18)}、`);
    expect(sliceText("羅生門羅生門羅生門羅生門", 0, 7)).toBe("羅生門羅生門羅");
  });

  it("never cuts inside a grapheme: emoji sequences, flags and combining marks stay whole", () => {
    const family = "👨‍👩‍👧‍👦";
    expect(sliceText(`xxxx${family}yyyy`, 0, 8)).toBe("xxxx");
    expect(sliceText("xx🇯🇵yy", 0, 4)).toBe("xx");
    expect(sliceText("xxe\u0301\u0301yy", 0, 4)).toBe("xx");
  });

  it("a grapheme longer than the page is cut at a code point, never inside a surrogate pair", () => {
    const family = "👨‍👩‍👧‍👦";
    expect(sliceText(family, 0, 3)).toBe("👨\u200d");
    expect(sliceText("🎉🎉", 0, 1)).toBe("🎉");
    expect(pageEnd("a🎉", 0, 2)).toBe(1);
  });

  it("the last page takes the rest, whatever its content", () => {
    expect(sliceText("tail end", 2, 100)).toBe("il end");
    expect(pageEnd("abc", 3, 10)).toBe(3);
  });

  it.each([1, 2, 3, 5, 8, 13, 40, 97, 400])(
    "pages of mixed English, Japanese, emoji and combining marks are lossless with room for %i",
    (length) => {
      const text = Array.from(
        { length: 40 },
        (_, i) =>
          `Paragraph ${i} confusing words\n羅生門の下で雨やみを待っていた。${"👨‍👩‍👧".repeat(i % 3)}café\u0301 🇯🇵${i % 5 === 0 ? "\n\n" : " "}`,
      ).join("");
      const cut = pages(text, length);
      expect(cut.join("")).toBe(text);
      for (const page of cut) {
        expect(page.length).toBeGreaterThan(0);
        expect(page.length).toBeLessThanOrEqual(Math.max(length, 2));
        expect(page).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
      }
    },
  );
});

describe("fitting a page and its footer into the result limit", () => {
  const token = "t".repeat(40);
  /** Lines of 999 characters and a line break: a page ends after one of them while its budget lets it. */
  const text = `${"a".repeat(999)}\n`.repeat(20);
  const page = (budget: number) => {
    const body = sliceText(text, 0, budget);
    return { body, nextToken: body.length < text.length ? token : null };
  };

  it("a window always makes progress: a break point that stays put while the budget shrinks still fits", async () => {
    // Five lines and the footer are one character over the limit: every budget down to 5000 ends
    // after the fifth line again, so shrinking the budget by the overshoot alone takes ~80 tries.
    const limit = 5000 + formatPageInfo({ nextToken: token }).length - 1;
    const outcome = await fitPage(page, { limit, maxChars: limit });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(renderObservation(outcome).length).toBeLessThanOrEqual(limit);
    expect(outcome.output.length).toBeGreaterThan(0);
    expect(text.startsWith(outcome.output)).toBe(true);
  });

  it.each([100, 1000, 1081, 4000, 6000])(
    "a page longer than the window is split inside it, for any limit (%i)",
    async (limit) => {
      const outcome = await fitPage(page, { limit, maxChars: limit });
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(renderObservation(outcome).length).toBeLessThanOrEqual(limit);
      expect(outcome.output.length).toBeGreaterThan(0);
    },
  );

  it("only a footer that cannot fit at all is an error, a retryable one naming the limit to raise", async () => {
    const outcome = await fitPage(
      (budget) => ({ header: "h".repeat(30), body: sliceText(text, 0, budget), nextToken: token }),
      { limit: 90, maxChars: 90 },
    );
    expect(outcome).toMatchObject({ ok: false, error: { kind: "result_too_large", retryable: true } });
    if (outcome.ok) return;
    expect(outcome.error.message).toContain("MAX_TOOL_RESULT_CHARS");
    expect(outcome.error.message).toContain("90");
  });

  it("ends for any page builder, even one that ignores the room it is given", async () => {
    let builds = 0;
    const outcome = await fitPage(
      () => {
        builds++;
        return { body: "x".repeat(500), nextToken: token };
      },
      { limit: 300, maxChars: 300 },
    );
    expect(outcome).toMatchObject({ ok: false, error: { kind: "result_too_large", retryable: true } });
    expect(outcome.ok || outcome.error.message).toContain("smaller max_chars");
    expect(builds).toBeLessThanOrEqual(300);
  });
});
