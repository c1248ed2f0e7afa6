/**
 * Salient terms of a chunk for the knowledge graph's `RELATES_TO` edges: stemmed term
 * frequencies, ranked by TF-IDF over the chunks seen so far.
 */
import { isGraphTerm } from '../text/chunk-analysis.js';
import { stemmedTerms } from '../text/stem.js';
import type { GraphState } from './graph-state.js';

/** Terms of a text with their frequency. */
export function termFrequencies(text: string, minLength: number): Map<string, number> {
  const frequencies = new Map<string, number>();
  for (const term of stemmedTerms(text)) {
    if (isGraphTerm(term, minLength)) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  }
  return frequencies;
}

/**
 * A chunk's salient terms, best first, with salience in (0, 1] (relative to the best):
 * `(1 + ln tf) · ln(1 + N / df)` over the chunks seen so far, blocked terms left out.
 */
export function salientTerms(
  frequencies: ReadonlyMap<string, number>,
  state: Pick<GraphState, 'chunkCount' | 'documentFrequency' | 'blocked'>,
  count: number,
): { term: string; weight: number }[] {
  if (count <= 0) return [];
  // Insertion into a short best-first list: cheaper than sorting every term.
  const top: { term: string; weight: number }[] = [];
  const better = (a: { term: string; weight: number }, b: { term: string; weight: number }) =>
    a.weight > b.weight || (a.weight === b.weight && a.term < b.term);
  for (const [term, frequency] of frequencies) {
    if (state.blocked.has(term)) continue;
    const df = state.documentFrequency.get(term) ?? 1;
    const weight = (1 + Math.log(frequency)) * Math.log(1 + state.chunkCount / df);
    if (!(weight > 0)) continue;
    if (top.length === count) {
      const last = top[count - 1]!;
      if (!(weight > last.weight || (weight === last.weight && term < last.term))) continue;
    }
    const entry = { term, weight };
    let at = Math.min(top.length, count - 1);
    while (at > 0 && better(entry, top[at - 1]!)) at--;
    top.splice(at, 0, entry);
    if (top.length > count) top.pop();
  }
  const best = top[0]?.weight ?? 1;
  return top.map(({ term, weight }) => ({ term, weight: Math.min(1, weight / best) }));
}
