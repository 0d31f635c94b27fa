import { RADICALS_SUPPLEMENT_IDEOGRAPHS } from "./equivalent-ideographs";

/**
 * Characters PDF producers write where the reader means another one, and only those: fonts often map
 * a glyph shared by an ideograph and a radical to the radical (⽣ U+2F63 for 生), and vertical or
 * shaped glyphs to their presentation form (︒ for 。, ﻣ for م). NFKC is applied to these blocks alone:
 *
 * - U+2E80–U+2EFF CJK Radicals Supplement, to their equivalent unified ideograph (Unicode's
 *   EquivalentUnifiedIdeograph.txt, `equivalent-ideographs.ts`: ⻑ → 長, ⻩ → 黄, which NFKC leaves
 *   alone; it maps only ⺟ and ⻳), and U+2F00–U+2FDF Kangxi Radicals
 * - U+F900–U+FAFF and U+2F800–U+2FA1F CJK Compatibility Ideographs (and Supplement)
 * - U+FE10–U+FE1F Vertical Forms and U+FE30–U+FE4F CJK Compatibility Forms, to the full-width form
 *   where NFKC gives ASCII (︵ → （, ︐ → ，)
 * - U+FB1D–U+FB4F Hebrew and U+FB50–U+FDFF, U+FE70–U+FEFE Arabic Presentation Forms
 *
 * Elsewhere NFKC would change what the page says: ligatures (ﬁ), circled numbers (①), squared words
 * (㍻), full-width Latin and half-width katakana stay as written.
 */
const COMPAT_FORMS =
  /[\u2E80-\u2FDF\uF900-\uFAFF\uFE10-\uFE1F\uFE30-\uFE4F\uFB1D-\uFDFF\uFE70-\uFEFE\u{2F800}-\u{2FA1F}]+/gu;

/** Vertical punctuation whose NFKC is ASCII stands for the full-width form CJK text uses (︵ → （, not "("). */
const VERTICAL_FORM = /[\uFE10-\uFE1F\uFE30-\uFE4F]/u;

const RADICAL_IDEOGRAPH = new Map<number, string>(
  RADICALS_SUPPLEMENT_IDEOGRAPHS.flatMap(([first, last, ideograph]) =>
    Array.from({ length: last - first + 1 }, (_, i) => [first + i, String.fromCodePoint(ideograph)] as const),
  ),
);

function normaliseForm(char: string): string {
  const radical = RADICAL_IDEOGRAPH.get(char.codePointAt(0)!);
  if (radical) return radical;
  const normal = char.normalize("NFKC");
  const code = normal.codePointAt(0)!;
  const ascii = normal.length === 1 && code > 0x20 && code < 0x7f;
  return ascii && VERTICAL_FORM.test(char) ? String.fromCodePoint(code + 0xfee0) : normal;
}

export function normaliseCompatForms(text: string): string {
  return text.replace(COMPAT_FORMS, (run) => Array.from(run, normaliseForm).join(""));
}

/** Letters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko…), presentation forms included. */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE]/gu;
const LETTER = /\p{L}/gu;

/** True when most letters of `text` belong to right-to-left scripts. */
export function isMostlyRtl(text: string): boolean {
  const rtl = text.match(RTL_LETTER)?.length ?? 0;
  if (rtl === 0) return false;
  const letters = text.match(LETTER)?.length ?? 0;
  return rtl > letters - rtl;
}

export function hasRtlLetter(text: string): boolean {
  return /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE]/u.test(text);
}

/** Ideographs, kana, hangul and their punctuation and forms: the characters set upright in vertical writing. */
const WIDE =
  /^[\u1100-\u11FF\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFE10-\uFE1F\uFE30-\uFE4F\uFF00-\uFFEF\u{20000}-\u{3FFFF}]+$/u;

export function isWide(text: string): boolean {
  return WIDE.test(text);
}
