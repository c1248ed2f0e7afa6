/**
 * Word-level text helpers shared by the keyword index, the hashing embedder, the extractive
 * provider and the grounding checks. Pure functions; segmentation, normalisation and accent
 * folding are in `segment.ts`, language-aware analysis in `analyzer.ts`.
 */
import { splitContent } from './analyzer.js';
import { foldedWords } from './segment.js';

export { STOP_WORDS } from './english.js';

/**
 * Lower-cased words, in order: runs of letters and digits for ASCII text (as always); other
 * text is NFKC-normalised, accent-folded ("Café" → "cafe") and segmented where its script has
 * no spaces ("保証期間は" → 保証, 期間, は).
 */
export function words(text: string): string[] {
  return foldedWords(text);
}

/**
 * Words minus the stop words of the text's language (English unless its function words say
 * German, French, Spanish, Italian, Portuguese or Dutch; Japanese and Chinese particles are
 * stop words too): the terms that carry a text's topic.
 */
export function contentWords(text: string): string[] {
  return splitContent(text).content;
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
