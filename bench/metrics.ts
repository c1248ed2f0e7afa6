/**
 * Retrieval-quality metrics with the standard BEIR / trec_eval definitions. Pure functions.
 */

/** Relevance judgements: query id → (document id → graded relevance). */
export type Qrels = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Ranked document ids per query id. */
export type Run = ReadonlyMap<string, readonly string[]>;

/**
 * nDCG@k of one ranking: DCG = Σ gain / log2(rank + 1) over the first k results with gain =
 * the judged relevance (0 when unjudged), divided by the DCG of the ideal ordering of the
 * judgements. 0 when the query has no relevant document.
 */
export function ndcgAtK(
  ranking: readonly string[],
  judgements: ReadonlyMap<string, number>,
  k: number,
): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, index) => {
    const gain = judgements.get(id) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(index + 2);
  });
  const ideal = [...judgements.values()]
    .filter((gain) => gain > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Recall@k of one ranking: share of the relevant (relevance > 0) documents in the first k. */
export function recallAtK(
  ranking: readonly string[],
  judgements: ReadonlyMap<string, number>,
  k: number,
): number {
  const relevant = [...judgements].filter(([, gain]) => gain > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranking.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

/** Mean of a per-query metric over every judged query (a query missing from the run scores 0). */
export function meanMetric(
  run: Run,
  qrels: Qrels,
  metric: (ranking: readonly string[], judgements: ReadonlyMap<string, number>) => number,
): number {
  if (qrels.size === 0) return 0;
  let sum = 0;
  for (const [queryId, judgements] of qrels) sum += metric(run.get(queryId) ?? [], judgements);
  return sum / qrels.size;
}

/** Ids in order with repeats removed (first occurrence wins). */
export function dedupe(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** The p-th percentile (0–100) of some values, nearest-rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Parses a qrels TSV (`query-id  corpus-id  score`, optional header line). */
export function parseQrels(tsv: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const line of tsv.split('\n')) {
    const [queryId, documentId, score] = line.trim().split('\t');
    if (queryId === undefined || documentId === undefined || score === undefined) continue;
    const gain = Number(score);
    if (!Number.isFinite(gain) || queryId === 'query-id') continue;
    let judgements = qrels.get(queryId);
    if (judgements === undefined) {
      judgements = new Map();
      qrels.set(queryId, judgements);
    }
    judgements.set(documentId, gain);
  }
  return qrels;
}
