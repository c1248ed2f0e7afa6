/**
 * BM25 scoring of the memory keyword index: query terms, the per-namespace score
 * accumulators, the scoring pass over the posting lists (with a metadata filter and the
 * IDF-weighted `coverage` of each match) and the k-th best score that bounds the result.
 *
 * The pass prunes without changing the result (term-at-a-time MaxScore). Terms are read
 * rarest first (largest upper bound: `idf · query frequency · (k1 + 1)`, which no posting
 * reaches). Once the k-th best score so far exceeds what the terms still unread could add
 * together, no document not seen yet can reach the top k, and the longer lists are only
 * scanned for the documents already seen. Each seen document keeps its contribution per term,
 * and its score and coverage are summed in the query's term order at the end: the same
 * floating-point sums as scoring every posting, so the same matches, scores and order.
 */
import type { KeywordMatch, KeywordSearchOptions } from '../../ports/keyword-index.js';
import { bm25Idf } from '../../query/bm25.js';
import { compileFilter } from '../../query/filter.js';
import { filterDocumentIds } from './document-ids.js';
import type { Space } from './keyword-postings.js';

/** Query terms with their frequency in the query, first occurrence order. */
export function queryTerms(tokens: readonly string[]): Map<string, number> {
  const terms = new Map<string, number>();
  for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
  return terms;
}

/** Grows the namespace's per-document accumulators to cover every document number. */
function ensureAccumulators(space: Space): void {
  if (space.scores.length >= space.ids.length) return;
  const size = Math.max(64, space.ids.length * 2);
  space.scores = new Float64Array(size);
  space.slots = new Int32Array(size);
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

/** One query term's posting list and weights. */
interface QueryTerm {
  /** Position in the query's term order (its column in the contribution rows). */
  readonly column: number;
  readonly documents: readonly number[];
  readonly frequencies: readonly number[];
  readonly idf: number;
  /** `idf · query frequency · (k1 + 1)`: more than any posting of the term contributes. */
  readonly weight: number;
}

/** Margin for the rounding of sums taken in another order than the final ones. */
const SAFETY = 1e-9;

/** The `k` best BM25 matches of the query terms in a namespace, filtered if asked. */
export function search(
  space: Space,
  terms: Map<string, number>,
  options: KeywordSearchOptions,
  bm25: Bm25,
) {
  ensureAccumulators(space);
  const { scores, slots, lengths } = space;
  const averageLength = space.totalLength / space.count || 1;
  const lengthFactor = bm25.k1 * (1 - bm25.b);
  const lengthSlope = (bm25.k1 * bm25.b) / averageLength;
  const maxIdf = bm25Idf(space.count, 0);
  const width = terms.size;
  const present: QueryTerm[] = [];
  let totalIdf = 0;
  let column = -1;
  for (const [term, queryFrequency] of terms) {
    column++;
    const list = space.postings.get(term);
    if (list === undefined) {
      totalIdf += maxIdf;
      continue;
    }
    const idf = bm25Idf(space.count, list.documents.length);
    totalIdf += idf;
    present.push({
      column,
      documents: list.documents,
      frequencies: list.frequencies,
      idf,
      weight: idf * queryFrequency * (bm25.k1 + 1),
    });
  }
  // Rarest first; the upper bound of the terms from each position on.
  present.sort((a, b) => b.weight - a.weight || a.column - b.column);
  const rest = new Float64Array(present.length + 1);
  for (let at = present.length - 1; at >= 0; at--) rest[at] = rest[at + 1]! + present[at]!.weight;

  // Slots: 0 unseen, −1 refused by the filter, s > 0 the document's row s − 1.
  const seen: number[] = [];
  const marked: number[] = [];
  let rows = space.rows;
  const allowed = options.filter === undefined ? undefined : compileFilter(options.filter);
  const addRow = (number: number): number => {
    const slot = seen.push(number);
    if (rows.length < slot * width) {
      const grown = new Float64Array(Math.max(slot * width * 2, 256));
      grown.set(rows.subarray(0, (slot - 1) * width));
      rows = grown;
    }
    rows.fill(-1, (slot - 1) * width, slot * width);
    slots[number] = slot;
    return slot;
  };
  // A filter on `documentId` names its few documents: they are the only ones scored.
  const values = options.filter === undefined ? undefined : filterDocumentIds(options.filter);
  let open = values === undefined;
  if (!open) {
    for (const value of new Set(values)) {
      for (const number of space.byDocumentId.get(value) ?? []) {
        if (slots[number] !== 0) continue;
        if (allowed!(space.metadata[number]!)) addRow(number);
        else {
          slots[number] = -1;
          marked.push(number);
        }
      }
    }
  }
  const k = options.k;
  for (let at = 0; at < present.length; at++) {
    const { column, documents, frequencies, weight } = present[at]!;
    if (open && at > 0 && seen.length >= k && documents.length > seen.length / 4) {
      // Closed once no unseen document can score more than the k-th best one so far.
      const floor = kthLargest(seen, scores, k);
      if (floor * (1 - SAFETY) > rest[at]! * (1 + SAFETY)) open = false;
    }
    for (let index = 0; index < documents.length; index++) {
      const number = documents[index]!;
      let slot = slots[number]!;
      if (slot <= 0) {
        if (slot < 0 || !open) continue;
        if (allowed !== undefined && !allowed(space.metadata[number]!)) {
          slots[number] = -1;
          marked.push(number);
          continue;
        }
        slot = addRow(number);
      }
      const frequency = frequencies[index]!;
      const contribution =
        (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
      rows[(slot - 1) * width + column] = contribution;
      scores[number]! += contribution;
    }
  }
  space.rows = rows;

  // Scores and coverage summed in the query's term order, as one pass per term would.
  const idfs = new Float64Array(width);
  for (const term of present) idfs[term.column] = term.idf;
  const kept: number[] = [];
  const coverages: number[] = [];
  for (let slot = 0; slot < seen.length; slot++) {
    const number = seen[slot]!;
    let score = 0;
    let matched = 0;
    let any = false;
    for (let column = 0, at = slot * width; column < width; column++, at++) {
      const contribution = rows[at]!;
      if (contribution < 0) continue;
      score += contribution;
      matched += idfs[column]!;
      any = true;
    }
    scores[number] = score;
    if (!any) continue;
    kept.push(number);
    coverages.push(totalIdf > 0 ? Math.min(1, matched / totalIdf) : 0);
  }
  const floor = kthLargest(kept, scores, k);
  const matches: KeywordMatch[] = [];
  for (let at = 0; at < kept.length; at++) {
    const number = kept[at]!;
    if (scores[number]! < floor) continue;
    matches.push({
      id: space.ids[number]!,
      score: scores[number]!,
      coverage: coverages[at]!,
      metadata: space.metadata[number]!,
    });
  }
  for (const number of seen) {
    scores[number] = 0;
    slots[number] = 0;
  }
  for (const number of marked) slots[number] = 0;
  return matches.sort(compareMatches).slice(0, k);
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
