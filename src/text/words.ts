/**
 * Word-level text helpers shared by the keyword index, the hashing embedder, the extractive
 * provider and the grounding checks. Pure functions, no dependencies.
 */

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased runs of letters and digits, in order. */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** A short English stop-word list (function words that carry no topic). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have ' +
    'having he her hers him his how i if in into is it its itself me my no nor not of on or our ' +
    'ours she should so than that the their theirs them then there these they this those to too ' +
    'us was we were what when where which while who whom why will with would you your yours ' +
    'about above after again against all am any because before below between both down during ' +
    'each few further here just more most off once only other out over own same some such ' +
    'under until up very s t'
  ).split(' '),
);

/** Words minus stop words: the terms that carry a text's topic. */
export function contentWords(text: string): string[] {
  return words(text).filter((word) => !STOP_WORDS.has(word));
}

/** 32-bit FNV-1a hash of a string, with an optional seed. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
