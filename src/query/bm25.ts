/**
 * Keyword-search semantics every keyword index shares (memory, SQLite, Postgres): the terms a
 * text is indexed and searched by, and BM25's inverse document frequency.
 */
import { analyzeTerms } from '../text/analyzer.js';

/**
 * The default tokenizer, the text analyser with its language detected per text
 * (`text/analyzer.ts`): words (segmented where the script has no spaces), stop words removed,
 * stemmed ("refunds", "refunded" → "refund"; on SciFact train, nDCG@10 0.692 against 0.668
 * unstemmed), accent-folded, and the parts of camelCase identifiers after the words
 * (`parseURL` → `parseurl`, `pars`, `url`). ASCII English text gives the terms of earlier
 * versions plus those parts, so stored SQLite and Postgres indexes keep matching every word.
 */
export function tokenizeForIndex(text: string): string[] {
  return analyzeTerms(text, 'auto', true);
}

/** BM25 inverse document frequency (Lucene's non-negative form). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
