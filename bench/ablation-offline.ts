/**
 * Offline retrieval ideas tried for issue 17's SciFact target (nDCG@10 ≥ 0.70), each against
 * the same BM25 baseline (stemmed terms, title × 3, k1 0.9, b 0.4), tuned on train and
 * reported on test. None ships: see docs/retrieval.md#numbers-scifact-npm-run-benchquality.
 *
 *   node --import tsx bench/ablation-offline.ts [--data DIR] [--dims 512]
 *
 * 1. **Reflective random indexing** (an embedding trained on the indexed corpus at ingest):
 *    each document gets a sparse random ±1 signature; a term's vector is the sum of the
 *    signatures of the documents holding it (weighted 1 + ln tf); a text's vector is the
 *    idf-weighted sum of its terms' unit vectors. Alone, and fused with BM25 by weighted
 *    reciprocal rank (as the engine fuses) or by normalised score.
 * 2. **Proximity as term pairs**: adjacent stemmed-term pairs (window 1 or 3) indexed as extra
 *    BM25 terms, weighted against the single terms.
 * 3. **Query expansion from the same term vectors**: the query's nearest terms by cosine
 *    (document frequency ≥ 3) added to the BM25 query with weight β × cosine.
 */
import { parseArgs } from 'node:util';

import { stemmedTerms } from '../src/text/stem.js';
import { meanMetric, ndcgAtK, recallAtK } from './metrics.js';
import { loadSplit } from './quality.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/scifact' },
    dims: { type: 'string', default: '512' },
  },
});
const DIMS = Number(values.dims);
const NON_ZERO = 10;
const K1 = 0.9;
const B = 0.4;
const HEADER_WEIGHT = 3;

const splits = { train: loadSplit(values.data, 'train'), test: loadSplit(values.data, 'test') };
const documents = splits.train.documents;
const N = documents.length;

/** mulberry32: a small seeded generator, so the signatures are the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function counts(terms: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
  return tf;
}

function normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

// ---- BM25 over single terms and over term pairs ------------------------------------------

interface Postings {
  readonly postings: Map<string, [number, number][]>;
  readonly lengths: Float64Array;
  readonly average: number;
}

function pairs(terms: readonly string[], window: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < terms.length; i++) {
    for (let j = i + 1; j <= i + window && j < terms.length; j++) {
      const [a, b] = terms[i]! < terms[j]! ? [terms[i]!, terms[j]!] : [terms[j]!, terms[i]!];
      out.push(`${a}|${b}`);
    }
  }
  return out;
}

const indexedTerms = documents.map((document) =>
  stemmedTerms(`${`${document.title}\n`.repeat(HEADER_WEIGHT)}${document.text}`),
);

function index(termsOf: (terms: readonly string[]) => string[]): Postings {
  const postings = new Map<string, [number, number][]>();
  const lengths = new Float64Array(N);
  indexedTerms.forEach((terms, document) => {
    const own = termsOf(terms);
    lengths[document] = own.length;
    for (const [term, tf] of counts(own)) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push([document, tf]);
    }
  });
  return { postings, lengths, average: lengths.reduce((a, b) => a + b, 0) / N };
}

function bm25(index: Postings, query: ReadonlyMap<string, number>, scores: Float64Array): void {
  for (const [term, weight] of query) {
    const list = index.postings.get(term);
    if (!list) continue;
    const idf = Math.log(1 + (N - list.length + 0.5) / (list.length + 0.5));
    for (const [document, tf] of list) {
      const norm = K1 * (1 - B + (B * index.lengths[document]!) / index.average);
      scores[document]! += (weight * idf * tf * (K1 + 1)) / (tf + norm);
    }
  }
}

function ranking(scores: ArrayLike<number>, k = 100): string[] {
  const order: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i]! > 0) order.push(i);
  order.sort((a, b) => scores[b]! - scores[a]!);
  return order.slice(0, k).map((i) => documents[i]!.id);
}

// ---- reflective random indexing ----------------------------------------------------------

const documentTerms = documents.map((document) =>
  counts(stemmedTerms(`${document.title}\n${document.text}`)),
);
const df = new Map<string, number>();
for (const tf of documentTerms) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
const termIds = new Map<string, number>();
for (const term of df.keys()) termIds.set(term, termIds.size);
const termList = [...termIds.keys()];
const termVectors = new Float32Array(termIds.size * DIMS);
{
  const next = random(7);
  for (const tf of documentTerms) {
    const slots = Array.from({ length: NON_ZERO }, () => Math.floor(next() * DIMS));
    const signs = Array.from({ length: NON_ZERO }, () => (next() < 0.5 ? -1 : 1));
    for (const [term, count] of tf) {
      const offset = termIds.get(term)! * DIMS;
      const weight = 1 + Math.log(count);
      for (let i = 0; i < NON_ZERO; i++) termVectors[offset + slots[i]!]! += signs[i]! * weight;
    }
  }
  for (let term = 0; term < termIds.size; term++) {
    normalise(termVectors.subarray(term * DIMS, (term + 1) * DIMS));
  }
}

function embed(tf: ReadonlyMap<string, number>): Float32Array {
  const vector = new Float32Array(DIMS);
  for (const [term, count] of tf) {
    const id = termIds.get(term);
    const frequency = df.get(term) ?? 0;
    if (id === undefined || frequency < 2) continue;
    const weight = Math.log((N + 1) / (frequency + 0.5)) * (1 + Math.log(count));
    for (let k = 0; k < DIMS; k++) vector[k]! += weight * termVectors[id * DIMS + k]!;
  }
  return normalise(vector);
}

const documentVectors = documentTerms.map(embed);

function cosines(query: string): Float32Array {
  const q = embed(counts(stemmedTerms(query)));
  const out = new Float32Array(N);
  documentVectors.forEach((vector, document) => {
    let dot = 0;
    for (let k = 0; k < DIMS; k++) dot += q[k]! * vector[k]!;
    out[document] = dot;
  });
  return out;
}

function rrf(
  runs: readonly (readonly string[])[],
  weights: readonly number[],
  k: number,
): string[] {
  const scores = new Map<string, number>();
  runs.forEach((run, j) =>
    run.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + weights[j]! / (k + rank + 1))),
  );
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

function expansion(query: string, m: number, beta: number): Map<string, number> {
  const terms = new Map<string, number>();
  for (const term of stemmedTerms(query)) terms.set(term, 1);
  if (m === 0) return terms;
  const q = embed(terms);
  const nearest: [number, number][] = [];
  termList.forEach((term, id) => {
    if ((df.get(term) ?? 0) < 3 || terms.has(term)) return;
    let dot = 0;
    for (let k = 0; k < DIMS; k++) dot += q[k]! * termVectors[id * DIMS + k]!;
    nearest.push([dot, id]);
  });
  nearest.sort((a, b) => b[0] - a[0]);
  for (const [cosine, id] of nearest.slice(0, m)) terms.set(termList[id]!, beta * cosine);
  return terms;
}

// ---- the runs ----------------------------------------------------------------------------

const single = index((terms) => [...terms]);
const pairIndexes = new Map([1, 3].map((window) => [window, index((t) => pairs(t, window))]));

for (const [name, split] of Object.entries(splits)) {
  const report = (label: string, runs: readonly (readonly string[])[]): void => {
    const run = new Map(split.queries.map((query, i) => [query.id, [...runs[i]!]]));
    const ndcg = meanMetric(run, split.qrels, (r, j) => ndcgAtK(r, j, 10));
    const recall = meanMetric(run, split.qrels, (r, j) => recallAtK(r, j, 100));
    console.log(`${name.padEnd(6)} ${label.padEnd(44)} ${ndcg.toFixed(4)} ${recall.toFixed(4)}`);
  };
  const bm25Runs = split.queries.map((query) => {
    const scores = new Float64Array(N);
    bm25(single, expansion(query.text, 0, 0), scores);
    return ranking(scores);
  });
  const vectorScores = split.queries.map((query) => cosines(query.text));
  const vectorRuns = vectorScores.map((scores) => ranking(scores));
  report('BM25 (baseline)', bm25Runs);
  report('random indexing alone', vectorRuns);
  for (const [weight, k] of [
    [0.1, 3],
    [0.2, 3],
    [0.3, 3],
    [0.2, 10],
  ] as const) {
    report(
      `RRF BM25 + random indexing (w ${weight}, k ${k})`,
      bm25Runs.map((run, i) => rrf([run, vectorRuns[i]!], [1, weight], k)),
    );
  }
  for (const lambda of [0.1, 0.2, 0.5]) {
    const runs = split.queries.map((query, i) => {
      const scores = new Float64Array(N);
      bm25(single, expansion(query.text, 0, 0), scores);
      const top = Math.max(...scores, 1e-9);
      const cos = vectorScores[i]!;
      const sorted = Float32Array.from(cos).sort();
      const high = sorted[N - 1]!;
      const low = sorted[N - 100]!;
      for (let d = 0; d < N; d++) {
        const vector = Math.max(0, (cos[d]! - low) / (high - low || 1));
        scores[d] = scores[d]! / top + lambda * vector;
      }
      return ranking(scores);
    });
    report(`linear BM25 + λ random indexing (λ ${lambda})`, runs);
  }
  for (const [window, weight] of [
    [1, 0.1],
    [1, 0.2],
    [1, 0.3],
    [3, 0.1],
  ] as const) {
    const runs = split.queries.map((query) => {
      const scores = new Float64Array(N);
      const terms = stemmedTerms(query.text);
      bm25(single, expansion(query.text, 0, 0), scores);
      const pairTerms = new Map([...counts(pairs(terms, window)).keys()].map((t) => [t, weight]));
      bm25(pairIndexes.get(window)!, pairTerms, scores);
      return ranking(scores);
    });
    report(`BM25 + term pairs (window ${window}, w ${weight})`, runs);
  }
  for (const [m, beta] of [
    [5, 0.1],
    [10, 0.1],
    [10, 0.2],
    [20, 0.1],
  ] as const) {
    const runs = split.queries.map((query) => {
      const scores = new Float64Array(N);
      bm25(single, expansion(query.text, m, beta), scores);
      return ranking(scores);
    });
    report(`BM25 + expansion (${m} terms, β ${beta})`, runs);
  }
}
