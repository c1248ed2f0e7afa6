/**
 * Calibrated relevance of a chunk in [0, 1] (cosine range and keyword coverage), the tail cut's
 * companion adaptive k, and the thresholds measured for the default offline stack.
 */

/** Default spread under which the top-k scores count as "close together". */
export const DEFAULT_WIDEN_SPREAD = 0.05;

/**
 * A fixed guard threshold on `topScore` for the default offline stack (hashing embedder +
 * BM25), measured on SciFact questions vs off-topic questions. Not the default any more: unset
 * `minSimilarity` lets the index-adaptive guard (`src/pipeline/guard.ts`) decide, which also
 * holds on small corpora (trust benchmark, `npm run bench:trust`).
 */
export const RECOMMENDED_MIN_SIMILARITY = 0.35;

/**
 * Cosine similarities of the hashing embedder mapped to 0 and 1: at or below 0.1 means
 * unrelated (off-topic median top cosine 0.12), at or above 0.5 as related as it gets
 * (SciFact claims: median top cosine 0.32, p90 0.46).
 */
export const DEFAULT_COSINE_RANGE: readonly [number, number] = [0.1, 0.5];

/** Clamps a value to [0, 1]. */
export function clamp01(value: number): number {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/**
 * Calibrated relevance in [0, 1]: the mean of the cosine similarity rescaled linearly from
 * `cosineRange` to [0, 1] and the keyword coverage, a signal the searches did not return
 * counting as 0 (a chunk both searches agree on is more trustworthy).
 */
export function relevanceScore(
  vectorScore: number | null,
  keywordScore: number | null,
  cosineRange: readonly [number, number] = DEFAULT_COSINE_RANGE,
): number {
  const [floor, ceiling] = cosineRange;
  const vector = vectorScore === null ? 0 : clamp01((vectorScore - floor) / (ceiling - floor));
  const keyword = keywordScore === null ? 0 : clamp01(keywordScore);
  return (vector + keyword) / 2;
}

/**
 * How many chunks to return: `maxK` when the scores of the first `max(k, 2)` chunks lie
 * within `spread` (the top is not clearly separated), else `k`.
 */
export function adaptiveK(
  scores: readonly number[],
  k: number,
  maxK: number,
  spread: number,
): number {
  if (maxK <= k || scores.length <= k) return k;
  const top = scores.slice(0, Math.max(k, 2));
  return Math.max(...top) - Math.min(...top) <= spread ? maxK : k;
}
