/**
 * BM25 scoring of the memory keyword index: query terms, the per-namespace score
 * accumulators, the scoring pass over the posting lists (with a metadata filter and the
 * IDF-weighted `coverage` of each match) and the k-th best score that bounds the result.
 */
import type { KeywordMatch, KeywordSearchOptions } from '../../ports/keyword-index.js';
import { bm25Idf } from '../../query/bm25.js';
import { compileFilter } from '../../query/filter.js';
import type { Space } from './keyword-postings.js';

/** Query terms with their frequency in the query, first occurrence order. */
export function queryTerms(tokens: readonly string[]): Map<string, number> {
  const terms = new Map<string, number>();
  for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
  return terms;
}

/** Grows the namespace's score accumulators to cover every document number. */
function ensureAccumulators(space: Space): void {
  if (space.scores.length >= space.ids.length) return;
  const size = Math.max(64, space.ids.length * 2);
  space.scores = new Float64Array(size);
  space.matched = new Float64Array(size);
}

/** Better-first order: higher score, then smaller id. */
function compareMatches(a: KeywordMatch, b: KeywordMatch): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The BM25 parameters. */
export interface Bm25 {
  readonly k1: number;
  readonly b: number;
}

/** The `k` best BM25 matches of the query terms in a namespace, filtered if asked. */
export function search(
  space: Space,
  terms: Map<string, number>,
  options: KeywordSearchOptions,
  bm25: Bm25,
) {
  ensureAccumulators(space);
  const { scores, matched, lengths } = space;
  const averageLength = space.totalLength / space.count || 1;
  const touched: number[] = [];
  const maxIdf = bm25Idf(space.count, 0);
  let totalIdf = 0;
  for (const [term, queryFrequency] of terms) {
    const list = space.postings.get(term);
    if (list === undefined) {
      totalIdf += maxIdf;
      continue;
    }
    const { documents, frequencies } = list;
    const idf = bm25Idf(space.count, documents.length);
    totalIdf += idf;
    const weight = idf * queryFrequency * (bm25.k1 + 1);
    const lengthFactor = bm25.k1 * (1 - bm25.b);
    const lengthSlope = (bm25.k1 * bm25.b) / averageLength;
    for (let index = 0; index < documents.length; index++) {
      const number = documents[index]!;
      const frequency = frequencies[index]!;
      if (matched[number] === 0) touched.push(number);
      scores[number]! +=
        (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
      matched[number]! += idf;
    }
  }
  // Without a filter every touched document is kept: no second list of them.
  let kept = touched;
  if (options.filter !== undefined) {
    const allowed = compileFilter(options.filter);
    kept = touched.filter((number) => allowed(space.metadata[number]!));
  }
  const floor = kthLargest(kept, scores, options.k);
  const matches: KeywordMatch[] = [];
  for (const number of kept) {
    if (scores[number]! < floor) continue;
    matches.push({
      id: space.ids[number]!,
      score: scores[number]!,
      coverage: totalIdf > 0 ? Math.min(1, matched[number]! / totalIdf) : 0,
      metadata: space.metadata[number]!,
    });
  }
  for (const number of touched) {
    scores[number] = 0;
    matched[number] = 0;
  }
  return matches.sort(compareMatches).slice(0, options.k);
}

/**
 * The k-th largest score among the documents (−∞ when there are at most k), duplicates
 * counted: the smallest of a bounded min-heap of the k best, O(n log k) instead of sorting
 * every matched document (which dominated a query over 100,000 records).
 */
function kthLargest(numbers: readonly number[], scores: Float64Array, k: number): number {
  if (numbers.length <= k) return -Infinity;
  const heap = new Float64Array(k);
  let size = 0;
  for (const number of numbers) {
    const value = scores[number]!;
    if (size < k) {
      // Sift up.
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= value) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = value;
    } else if (value > heap[0]!) {
      // Replace the smallest, sift down.
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= k) break;
        const right = left + 1;
        const child = right < k && heap[right]! < heap[left]! ? right : left;
        if (heap[child]! >= value) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = value;
    }
  }
  return heap[0]!;
}
