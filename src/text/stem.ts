/**
 * Stemming for the keyword index. The English stemmer lives in `english.ts`; the stemmed
 * tokenizer is the language-aware analyser of `analyzer.ts`.
 *
 * Stemming lets "mutations", "mutated" and "mutation" meet in the keyword index: on SciFact
 * (train split) BM25 with it scores nDCG@10 0.692 against 0.668 without.
 */
import { analyzeTerms } from './analyzer.js';

export { stem } from './english.js';

/**
 * Index terms: lower-cased words without stop words, stemmed, in the text's language (see
 * `analyzeTerms`); the keyword index's default tokenizer. ASCII English text gives the same
 * terms as always.
 */
export function stemmedTerms(text: string): string[] {
  return analyzeTerms(text);
}

// An adverb made from an adjective by "-ly": "synchronously", "recursively", "manually".
const ADVERB = /^([a-z]{3,}(?:ous|ive|al|ent|ant|ful|less))ly$/;

/**
 * The adjective a lower-cased "-ly" adverb is made from ("synchronously" → "synchronous",
 * "recursively" → "recursive"), else null. The stemmer leaves adverbs whole, so "How do I find
 * files synchronously?" never meets the heading "Synchronous"; the stemmer itself is kept as it
 * is (stored indexes keep their terms) and the question side looks the adjective up too
 * (the guard's focus check, the offline follow-up rewrite).
 */
export function adjectiveOf(word: string): string | null {
  return ADVERB.exec(word)?.[1] ?? null;
}
