import iconv from "iconv-lite";

/**
 * Pages in legacy encodings, as their bytes, declaring no charset anywhere (the case that used to
 * come out as U+FFFD floods). The bytes are checked against Node's own ICU decoders in
 * `lib/text/charset.test.ts`, so they do not depend on the decoder under test.
 */

export const RASHOMON =
  "或日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。広い門の下には、この男のほかに誰もいない。ただ、所々丹塗の剥げた、大きな円柱に、蟋蟀が一匹とまっている。";
export const KOREAN_CONSTITUTION =
  "대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다. 대한민국의 국민이 되는 요건은 법률로 정한다.";
export const HEBREW_GENESIS =
  "בראשית ברא אלהים את השמים ואת הארץ. והארץ היתה תהו ובהו וחשך על פני תהום ורוח אלהים מרחפת על פני המים.";
export const CHINESE_TEXT =
  "中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。社会主义制度是中华人民共和国的根本制度。";

export const undeclaredPage = (title: string, paragraph: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${paragraph}</p></main></body></html>`;

/** `[name, WHATWG label for TextDecoder, iconv codec, text]` */
export const ENCODED_SAMPLES = [
  ["Japanese in Shift_JIS", "shift_jis", "cp932", RASHOMON],
  ["Japanese in EUC-JP", "euc-jp", "euc-jp", RASHOMON],
  ["Korean in EUC-KR", "euc-kr", "cp949", KOREAN_CONSTITUTION],
  ["Hebrew in windows-1255", "windows-1255", "windows-1255", HEBREW_GENESIS],
  ["Chinese in GB18030", "gb18030", "gb18030", CHINESE_TEXT],
] as const;

export const encodedPage = (codec: string, title: string, paragraph: string): Buffer =>
  iconv.encode(undeclaredPage(title, paragraph), codec);
