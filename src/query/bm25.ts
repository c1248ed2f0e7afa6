/**
 * Keyword-search semantics every keyword index shares (memory, SQLite, Postgres): the terms a
 * text is indexed and searched by, and BM25's inverse document frequency.
 */
import { stemmedTerms } from '../text/stem.js';

/**
 * The default tokenizer, the text analyser with its language detected per text
 * (`text/analyzer.ts`): words (segmented where the script has no spaces), stop words removed,
 * stemmed ("refunds", "refunded" → "refund"; on SciFact train, nDCG@10 0.692 against 0.668
 * unstemmed), accent-folded. ASCII English text gives the terms of earlier versions, so stored
 * SQLite and Postgres indexes keep matching.
 */
export const tokenizeForIndex: (text: string) => string[] = stemmedTerms;

/** BM25 inverse document frequency (Lucene's non-negative form). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
