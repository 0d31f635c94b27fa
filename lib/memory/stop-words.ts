/**
 * Words that do not decide which memory is relevant to a question (docs/architecture.md, "Projects
 * and memory"): English function words, and Japanese particles and endings. A short list on
 * purpose: it only keeps "the", "is", "of", "は", "を" from outweighing the word a question is
 * about. Framework-free.
 */

/** Folded (lowercase) English words. */
const ENGLISH = new Set(
  (
    "a an the is are was were be been being am do does did doing have has had " +
    "of to in on at by for with from into onto about as than then so and or but if " +
    "it its this that these those there here what which who whom whose how when where why " +
    "i me my mine you your yours we us our ours he him his she her hers they them their theirs " +
    "can could would should will shall may might must please"
  ).split(" "),
);

/** Japanese particles, hiragana only: kanji and katakana words are never cut at them. */
const PARTICLES = /[はがをにのでとへもやかよねな]+/u;
const HIRAGANA = /^\p{Script=Hiragana}$/u;

/** Endings and pronouns written without a particle in them (ます, した, これ). */
const JAPANESE_PAIRS = new Set([
  "ます",
  "まし",
  "ませ",
  "せん",
  "した",
  "ある",
  "いる",
  "する",
  "これ",
  "それ",
  "あれ",
  "どれ",
  "ここ",
  "そこ",
]);

/** Whether a folded word (not CJK) is an English stop word. */
export const isStopWord = (word: string): boolean => ENGLISH.has(word);

/**
 * A CJK run's parts between its particles (東京の本社で → 東京, 本社), a lone kana left between
 * two of them (the す of ですか) dropped: the grammar around the words, not the words.
 */
export const withoutParticles = (run: string): string[] =>
  run.split(PARTICLES).filter((part) => part !== "" && !HIRAGANA.test(part));

/** Whether a CJK character pair is an ending or a pronoun, not content. */
export const isStopPair = (pair: string): boolean => JAPANESE_PAIRS.has(pair);
