import { describe, expect, it } from "vitest";
import { isMostlyRtl, normaliseCompatForms } from "./compat-forms";

describe("compatibility forms in PDF text", () => {
  it("maps Kangxi radicals, CJK compatibility ideographs and vertical forms to what they stand for", () => {
    expect(normaliseCompatForms("羅⽣⾨の⼀⼈\uF900\u{2F800}")).toBe("羅生門の一人\u8C48\u4E3D");
    expect(normaliseCompatForms("あ︒い︑︵う︶︐")).toBe("あ。い、（う），");
  });

  it("maps CJK Radicals Supplement code points to their equivalent ideograph, which NFKC leaves alone (⻑ → 長, ⻩ → 黄)", () => {
    expect("⻑⻩".normalize("NFKC")).toBe("⻑⻩");
    expect(normaliseCompatForms("⻑い⻩色の⻤、⺟")).toBe("長い黄色の鬼、母");
    // U+2E80 has no equivalent ideograph in Unicode's data: it stays as written.
    expect(normaliseCompatForms("\u2E80")).toBe("\u2E80");
  });

  it("maps Arabic and Hebrew presentation forms to their letters", () => {
    expect(normaliseCompatForms("ﻣﺮﺣﺒﺎ ﻼ \uFB2A")).toBe("مرحبا لا \u05E9\u05C1");
  });

  it("leaves ligatures, circled numbers, squared words, full-width Latin and half-width kana as written", () => {
    const kept = "ﬁle ① ㍻ ＡＢＣ１ ｶﾀｶﾅ ™ x²";
    expect(normaliseCompatForms(kept)).toBe(kept);
  });

  it("calls a line right-to-left only when most of its letters are", () => {
    expect(isMostlyRtl("שלום PDF")).toBe(true);
    expect(isMostlyRtl("A Hebrew word: שלום in an English sentence")).toBe(false);
    expect(isMostlyRtl("1234 !?")).toBe(false);
  });
});
