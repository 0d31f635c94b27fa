import { describe, expect, it } from "vitest";
import { localeFromAcceptLanguage, pickLocale } from "./locales";

describe("the UI language", () => {
  it("takes the first supported language of the browser's list", () => {
    expect(pickLocale(["fr-FR", "ja-JP", "en-US"])).toBe("ja");
    expect(pickLocale(["en-GB", "ja"])).toBe("en");
  });

  it("falls back to English when no language is supported", () => {
    expect(pickLocale(["de", "fr"])).toBe("en");
    expect(localeFromAcceptLanguage(null)).toBe("en");
  });

  it("reads an Accept-Language header with quality values", () => {
    expect(localeFromAcceptLanguage("ja,en-US;q=0.9,en;q=0.8")).toBe("ja");
  });
});
