/**
 * Weighted reciprocal-rank fusion of the ranked lists (vector, keyword, graph expansion) and its
 * defaults.
 */
import type { FusionWeights } from './options.js';

/**
 * Default fusion weights, tuned on the SciFact train split: the offline hashing embedder is
 * much weaker than BM25 (nDCG@10 0.47 vs 0.67), so it refines rather than leads the ranking.
 */
export const DEFAULT_FUSION_WEIGHTS: FusionWeights = { vector: 0.2, keyword: 1 };

/**
 * Default RRF rank constant. Smaller than the classic 60 on purpose: with 60 the top ranks
 * are nearly flat and the weak vector list reorders BM25's best hits (train nDCG@10 0.637 vs
 * 0.670 at 3). With a strong embedder, pass `rrfK: 60` and equal weights.
 */
export const DEFAULT_RRF_K = 3;

/** One ranked list for fusion. */
export interface RankedList {
  /** Ids, best first; repeated ids count at their first position. */
  readonly ids: readonly string[];
  /** Weight of this list (default 1). */
  readonly weight?: number | undefined;
}

/** One fused item. */
export interface FusedItem {
  /** The id. */
  readonly id: string;
  /** Σ weight / (rrfK + rank) over the lists containing it. */
  readonly score: number;
  /** 1-based rank in each input list, or null when absent. */
  readonly ranks: readonly (number | null)[];
}

/**
 * Weighted reciprocal-rank fusion: each list adds `weight / (rrfK + rank)` (rank 1-based).
 * Best first; ties go to the better best rank, then the smaller id.
 */
export function reciprocalRankFusion(
  lists: readonly RankedList[],
  rrfK = DEFAULT_RRF_K,
): FusedItem[] {
  const items = new Map<string, { score: number; ranks: (number | null)[] }>();
  lists.forEach((list, listIndex) => {
    const weight = list.weight ?? 1;
    list.ids.forEach((id, position) => {
      let item = items.get(id);
      if (item === undefined) {
        item = { score: 0, ranks: lists.map(() => null) };
        items.set(id, item);
      }
      if (item.ranks[listIndex] !== null) return;
      item.ranks[listIndex] = position + 1;
      item.score += weight / (rrfK + position + 1);
    });
  });
  // Each item's best rank, computed once (not twice per comparison of the sort).
  const ids: string[] = [];
  const scores: number[] = [];
  const ranks: (number | null)[][] = [];
  const best: number[] = [];
  for (const [id, item] of items) {
    let bestRank = Infinity;
    for (const rank of item.ranks) if (rank !== null && rank < bestRank) bestRank = rank;
    ids.push(id);
    scores.push(item.score);
    ranks.push(item.ranks);
    best.push(bestRank);
  }
  const order = ids.map((_, index) => index);
  order.sort(
    (a, b) =>
      scores[b]! - scores[a]! ||
      best[a]! - best[b]! ||
      (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0),
  );
  return order.map((index) => ({ id: ids[index]!, score: scores[index]!, ranks: ranks[index]! }));
}
