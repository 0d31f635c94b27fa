import { describe, expect, it } from "vitest";
import { isMostlyRtl, normaliseCompatForms } from "./compat-forms";

describe("compatibility forms in PDF text", () => {
  it("maps Kangxi radicals, CJK compatibility ideographs and vertical forms to what they stand for", () => {
    expect(normaliseCompatForms("羅⽣⾨の⼀⼈\uF900\u{2F800}")).toBe("羅生門の一人\u8C48\u4E3D");
    expect(normaliseCompatForms("あ︒い︑︵う︶︐")).toBe("あ。い、（う），");
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
