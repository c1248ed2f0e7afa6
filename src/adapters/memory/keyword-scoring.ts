/**
 * BM25 scoring of the memory keyword index: query terms, the per-namespace score
 * accumulators, the scoring pass over the posting lists (with a metadata filter and the
 * IDF-weighted `coverage` of each match) and the k-th best score that bounds the result.
 *
 * The pass prunes without changing the result (term-at-a-time MaxScore). Terms are read
 * rarest first (largest upper bound: `idf · query frequency · (k1 + 1)`, which no posting
 * reaches). Once the k-th best score so far exceeds what the terms still unread could add
 * together, no document not seen yet can reach the top k, and the longer lists are only
 * scanned for the documents already seen. The documents whose sums can still place them among
 * the k best are then rescored in the query's term order: the same floating-point sums as one
 * pass per term over every posting, so the same matches, scores, coverage and order.
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

/** Grows the namespace's per-document working arrays to cover every document number. */
function ensureAccumulators(space: Space): void {
  if (space.scores.length >= space.ids.length) return;
  const size = Math.max(64, space.ids.length * 2);
  space.scores = new Float64Array(size);
  space.slots = new Int32Array(size);
  space.seen = new Int32Array(size);
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
  /** Position in the query's term order (among the terms the namespace holds). */
  readonly column: number;
  readonly documents: readonly number[];
  readonly frequencies: readonly number[];
  /** Whether `documents` is ascending (see `Posting.ascending`): documents can be sought. */
  readonly ascending: boolean;
  readonly idf: number;
  /** `idf · query frequency · (k1 + 1)`: more than any posting of the term contributes. */
  readonly weight: number;
}

/** Margin for the rounding of sums taken in another order than the final ones. */
const SAFETY = 1e-9;

/** States of a document during the rarest-first pass (`Space.slots`; 0: not seen yet). */
const SEEN = 1;
/** Named by a `documentId` filter, not seen yet. */
const NAMED = 2;
/** Refused by the filter. */
const REFUSED = 3;

/**
 * Whether `wanted` documents are found in an ascending list of `length` postings by seeking
 * them (about `log2(length / wanted)` reads each) rather than by reading every posting.
 */
function seeks(wanted: number, length: number): boolean {
  return wanted * SEEK_RATIO < length;
}

/** Postings per wanted document above which a list is sought (6, 8 and 16 timed alike at 100k). */
const SEEK_RATIO = 8;

/**
 * Postings per document still in play above which the k-th best sum is taken again before
 * dropping documents (taking it reads them all and keeps a heap of k).
 */
const DROP_REFRESH = 4;

/**
 * The position of the first document ≥ `number` at or after `from` in an ascending list (its
 * length when there is none): galloping steps, then a binary search.
 */
function seek(documents: readonly number[], number: number, from: number): number {
  let low = from;
  let high = from;
  let step = 1;
  while (high < documents.length && documents[high]! < number) {
    low = high + 1;
    high += step;
    step *= 2;
  }
  if (high > documents.length) high = documents.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (documents[middle]! < number) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Sums the query terms' contributions, rarest term first, into `space.scores` and lists the
 * documents in `space.seen`; returns how many. Once the k-th best sum exceeds what the terms
 * still unread could add together, documents not seen yet are skipped: none can reach the k
 * best. A filter on `documentId` names its documents, and only they are scored.
 */
function scoreRarestFirst(
  space: Space,
  rarestFirst: readonly QueryTerm[],
  options: KeywordSearchOptions,
  bm25: Bm25,
  counts: SearchCounts | undefined,
): number {
  const { scores, slots, seen, lengths, metadata } = space;
  const averageLength = space.totalLength / space.count || 1;
  const lengthFactor = bm25.k1 * (1 - bm25.b);
  const lengthSlope = (bm25.k1 * bm25.b) / averageLength;
  const rest = new Float64Array(rarestFirst.length + 1);
  for (let at = rarestFirst.length - 1; at >= 0; at--) {
    rest[at] = rest[at + 1]! + rarestFirst[at]!.weight;
  }
  const allowed = options.filter === undefined ? undefined : compileFilter(options.filter);
  const marked: number[] = [];
  const values = options.filter === undefined ? undefined : filterDocumentIds(options.filter);
  let open = values === undefined;
  for (const value of new Set(values)) {
    for (const number of space.byDocumentId.get(value) ?? []) {
      if (slots[number] !== 0) continue;
      slots[number] = allowed!(metadata[number]!) ? NAMED : REFUSED;
      marked.push(number);
    }
  }
  let count = 0;
  // Once no other document can be scored (the list is closed and no filter names documents):
  // the seen documents that can still reach the k best, and how many. A long ascending list is
  // sought for them (sorted ascending first), not read whole.
  let alive: Int32Array | undefined;
  let aliveCount = 0;
  let aliveSorted = false;
  // The k-th best sum when last taken: sums only grow, so it stays a floor of the k best.
  let floor = -Infinity;
  let read = 0;
  for (let at = 0; at < rarestFirst.length; read += rarestFirst[at++]!.weight) {
    const { documents, frequencies, weight, ascending } = rarestFirst[at]!;
    // No sum exceeds the bounds of the terms read (`read`): while they are below the unread
    // ones', the pass cannot close, and the k-th best sum is not taken.
    if (
      open &&
      count > options.k &&
      documents.length > count >> 2 &&
      read * (1 + SAFETY) >= rest[at]!
    ) {
      floor = kthLargest(scores, count, options.k, seen);
      open = floor * (1 - SAFETY) <= rest[at]! * (1 + SAFETY);
    }
    if (!open && values === undefined) {
      if (alive === undefined) {
        alive = seen.slice(0, count);
        aliveCount = count;
      }
      // Dropping reads the documents kept, so it is done before a list at least as long, and
      // only where few enough may remain for the list to be sought.
      if (
        ascending &&
        documents.length >= aliveCount &&
        documents.length > SEEK_RATIO * options.k
      ) {
        if (documents.length > DROP_REFRESH * aliveCount) {
          floor = Math.max(floor, kthLargest(scores, aliveCount, options.k, alive));
        }
        aliveCount = dropUnreachable(alive, aliveCount, scores, slots, floor, rest[at]!);
        if (counts !== undefined) counts.alive = aliveCount;
      }
    }
    if (alive !== undefined && ascending && seeks(aliveCount, documents.length)) {
      // Sorted once, when first sought: dropping keeps the order, and fewer are left to sort.
      if (!aliveSorted) {
        alive.subarray(0, aliveCount).sort();
        aliveSorted = true;
      }
      if (counts !== undefined) counts.sought = (counts.sought ?? 0) + 1;
      let position = 0;
      for (let index = 0; index < aliveCount && position < documents.length; index++) {
        const number = alive[index]!;
        position = seek(documents, number, position);
        if (documents[position] !== number) continue;
        const frequency = frequencies[position++]!;
        scores[number]! +=
          (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
      }
      continue;
    }
    for (let index = 0; index < documents.length; index++) {
      const number = documents[index]!;
      const state = slots[number]!;
      if (state !== SEEN) {
        if (state === REFUSED || (state === 0 && !open)) continue;
        if (state === 0 && allowed !== undefined && !allowed(metadata[number]!)) {
          slots[number] = REFUSED;
          marked.push(number);
          continue;
        }
        slots[number] = SEEN;
        seen[count++] = number;
      }
      const frequency = frequencies[index]!;
      scores[number]! +=
        (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
    }
  }
  for (const number of marked) slots[number] = 0;
  return count;
}

/**
 * Drops from `alive` (the first `count` entries: seen documents) those whose sum,
 * with every unread term's bound (`rest`) added, stays under `floor` (a k-th best sum taken
 * during the pass, so at most the final one): none of them can reach the k best. Their slot is set to `REFUSED`, so that a list read whole skips them.
 * Returns how many are kept, in their order, at the front of `alive`.
 *
 * The result is unchanged: a dropped document's final sum is below the k-th best one of the
 * documents kept (sums only grow), so it would have been neither a finalist of the rescoring
 * nor a match; the documents kept get every contribution in the same order as before.
 */
function dropUnreachable(
  alive: Int32Array,
  count: number,
  scores: Float64Array,
  slots: Int32Array,
  floor: number,
  rest: number,
): number {
  // The bound to beat, with the margin the closing test uses (sums taken in another order).
  const needed = (floor * (1 - SAFETY)) / (1 + SAFETY) - rest;
  let kept = 0;
  for (let at = 0; at < count; at++) {
    const number = alive[at]!;
    if (scores[number]! >= needed) alive[kept++] = number;
    else slots[number] = REFUSED;
  }
  return kept;
}

/**
 * What a search did: how many documents it scored (the pruning leaves the others out), how
 * many posting lists it sought documents in instead of reading them whole, and how many
 * documents could still reach the k best when the last long list was read.
 */
export interface SearchCounts {
  scored: number;
  sought?: number;
  alive?: number;
}

/**
 * The `k` best BM25 matches of the query terms in a namespace, filtered if asked; `counts`
 * receives how many documents were scored.
 */
export function search(
  space: Space,
  terms: Map<string, number>,
  options: KeywordSearchOptions,
  bm25: Bm25,
  counts?: SearchCounts,
) {
  ensureAccumulators(space);
  const { lengths } = space;
  const maxIdf = bm25Idf(space.count, 0);
  const inQueryOrder: QueryTerm[] = [];
  let totalIdf = 0;
  for (const [term, queryFrequency] of terms) {
    const list = space.postings.get(term);
    if (list === undefined) {
      totalIdf += maxIdf;
      continue;
    }
    const idf = bm25Idf(space.count, list.documents.length);
    totalIdf += idf;
    inQueryOrder.push({
      column: inQueryOrder.length,
      documents: list.documents,
      frequencies: list.frequencies,
      ascending: list.ascending,
      idf,
      weight: idf * queryFrequency * (bm25.k1 + 1),
    });
  }
  const rarestFirst = [...inQueryOrder].sort((a, b) => b.weight - a.weight || a.column - b.column);
  const k = options.k;
  if (counts !== undefined) counts.sought = 0;
  const count = scoreRarestFirst(space, rarestFirst, options, bm25, counts);
  if (counts !== undefined) counts.scored = count;
  const { scores, slots, seen } = space;

  // The documents that can be among the k best by those sums, rescored in the query's term
  // order: the same floating-point sums as one pass per term over every posting.
  const approximate = kthLargest(scores, count, k, seen);
  const finalists: number[] = [];
  for (let at = 0; at < count; at++) {
    const number = seen[at]!;
    const score = scores[number]!;
    scores[number] = 0;
    slots[number] = 0;
    if (score >= approximate * (1 - SAFETY)) slots[number] = finalists.push(number);
  }
  const exact = new Float64Array(finalists.length);
  const matched = new Float64Array(finalists.length);
  const averageLength = space.totalLength / space.count || 1;
  const lengthFactor = bm25.k1 * (1 - bm25.b);
  const lengthSlope = (bm25.k1 * bm25.b) / averageLength;
  // The finalists, ascending, to seek in the long ascending lists.
  let ascendingFinalists: Int32Array | undefined;
  for (const { documents, frequencies, idf, weight, ascending } of inQueryOrder) {
    if (ascending && seeks(finalists.length, documents.length)) {
      ascendingFinalists ??= Int32Array.from(finalists).sort();
      if (counts !== undefined) counts.sought = (counts.sought ?? 0) + 1;
      let position = 0;
      for (let at = 0; at < finalists.length && position < documents.length; at++) {
        const number = ascendingFinalists[at]!;
        position = seek(documents, number, position);
        if (documents[position] !== number) continue;
        const frequency = frequencies[position++]!;
        const slot = slots[number]!;
        exact[slot - 1]! +=
          (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
        matched[slot - 1]! += idf;
      }
      continue;
    }
    for (let index = 0; index < documents.length; index++) {
      const number = documents[index]!;
      const slot = slots[number]!;
      if (slot <= 0) continue;
      const frequency = frequencies[index]!;
      exact[slot - 1]! +=
        (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
      matched[slot - 1]! += idf;
    }
  }
  const floor = kthLargest(exact, exact.length, k);
  const matches: KeywordMatch[] = [];
  for (const [at, number] of finalists.entries()) {
    slots[number] = 0;
    if (exact[at]! < floor) continue;
    matches.push({
      id: space.ids[number]!,
      score: exact[at]!,
      coverage: totalIdf > 0 ? Math.min(1, matched[at]! / totalIdf) : 0,
      metadata: space.metadata[number]!,
    });
  }
  return matches.sort(compareMatches).slice(0, k);
}

/**
 * The k-th largest of the first `count` values (−∞ when there are at most k), duplicates
 * counted: the smallest of a bounded min-heap of the k best, O(n log k) instead of sorting
 * every matched document (which dominated a query over 100,000 records). With `documents`,
 * the values of the first `count` documents listed there (`values[documents[i]]`), read in
 * place rather than copied into an array of their own (one allocation of `count` numbers per
 * call, several calls per search, over 10,000 documents per SciFact claim at 100k).
 */
function kthLargest(
  values: Float64Array,
  count: number,
  k: number,
  documents?: Int32Array,
): number {
  if (count <= k) return -Infinity;
  const heap = new Float64Array(k);
  let size = 0;
  for (let at = 0; at < count; at++) {
    const value = documents === undefined ? values[at]! : values[documents[at]!]!;
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
