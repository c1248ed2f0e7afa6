/**
 * Guard mode: whether the retrieved sources are relevant enough to answer from. By default the
 * decision adapts to the index: a logistic model over what the best chunk shares with the
 * query — the share of the query's terms it contains, how many, and the vector similarity —
 * and the size of the index (an off-topic query matches some term by chance more often in a
 * large index, so the same overlap counts for less there). A one-page corpus answers "How fast
 * are refunds?" from its one matching term; a 5,000-abstract corpus needs more. A query term
 * asking for a price or a time of day counts as contained in a chunk that states an amount of
 * money or a clock time (`guard-answer-type.ts`: "discount" ↔ "pay 19 euros", "morning" ↔
 * "5:00"). A threshold on the best score (`minSimilarity`) set by the user still wins.
 */
import { createSecondSightCache } from '../util/second-sight.js';
import { stemmedTerms } from '../text/stem.js';
import { answeredByType } from './guard-answer-type.js';
import { DEFAULT_COSINE_RANGE } from './retrieve/relevance.js';

/** Coefficients of the adaptive guard: answer when σ(bias + Σ weight·feature) ≥ `cut`. */
export interface GuardModel {
  /** Intercept. */
  readonly bias: number;
  /** Weight of the share of distinct query terms the chunk contains, in [0, 1]. */
  readonly matchedShare: number;
  /** Weight of ln(1 + distinct query terms the chunk contains). */
  readonly matchedTerms: number;
  /** Weight of the cosine similarity rescaled from the embedder's range to [0, 1]. */
  readonly vector: number;
  /** Weight of log10 of the number of records in the keyword index. */
  readonly indexSize: number;
  /** Answer probability at or above which the engine answers. */
  readonly cut: number;
}

/**
 * Fitted by `node --import tsx bench/fit-confidence.ts` (logistic regression) on the tuning
 * parts of the trust benchmark: SciFact train claims, the even docs questions, the 1/3/10-page
 * docs corpora and the 8-page e-bike handbook against half of the off-topic questions, each
 * corpus and class weighing the same (`cut` fixed at 0.5), before the answer-type rule was
 * added (refitted with it, it refuses paraphrases such as "Do I need a helmet?" on 8 pages).
 */
export const DEFAULT_GUARD_MODEL: GuardModel = {
  bias: -5.243,
  matchedShare: 2.685,
  matchedTerms: 5.532,
  vector: 3.907,
  indexSize: -1.245,
  cut: 0.5,
};

/** What the guard knows about one retrieved chunk. */
export interface GuardChunk {
  /** The chunk text. */
  readonly text: string;
  /** Cosine similarity, or null when the vector search did not find it. */
  readonly vectorScore: number | null;
}

/** Input of `decideGuard`. */
export interface GuardInput {
  /** The (standalone) query that was searched. */
  readonly query: string;
  /** The retrieved chunks. */
  readonly chunks: readonly GuardChunk[];
  /** Best `score` among them. */
  readonly topScore: number;
  /** Records in the keyword index namespace. */
  readonly indexSize: number;
  /** Cosines mapped to 0 and 1 (the retrieval's `cosineRange`; default `DEFAULT_COSINE_RANGE`). */
  readonly cosineRange?: readonly [number, number] | undefined;
  /** A fixed threshold on `topScore` set by the user; overrides the adaptive model. */
  readonly minSimilarity?: number | undefined;
  /** The adaptive model (default `DEFAULT_GUARD_MODEL`). */
  readonly model?: GuardModel | undefined;
  /**
   * Whether the adaptive guard's `evidence` must be the best chunk's answer probability
   * (default true). False: it stops at the first chunk, by vector similarity, whose probability
   * reaches the model's `cut` and reports that one: the same decision without analysing the
   * chunks after it (a turn asks for the best only when it records it).
   */
  readonly bestEvidence?: boolean | undefined;
}

/** The guard's decision. */
export interface GuardDecision {
  /** True: refuse with the guard answer. */
  readonly guard: boolean;
  /** Why it refused, or null when it answers. */
  readonly reason: 'no-sources' | 'low-similarity' | 'missing-focus' | null;
  /** What was compared: the answer probability (adaptive) or `topScore` (fixed threshold). */
  readonly evidence: number;
  /** What it was compared with: the model's `cut` or `minSimilarity`. */
  readonly threshold: number;
  /** Whether the adaptive model decided. */
  readonly adaptive: boolean;
}

const clamp01 = (value: number): number =>
  Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;

/** What one chunk shares with the query. */
export interface GuardFeatures {
  /** Share of the distinct query terms the chunk contains (or answers by type). */
  readonly matchedShare: number;
  /** ln(1 + distinct query terms the chunk contains). */
  readonly matchedTerms: number;
  /** Cosine rescaled to [0, 1]. */
  readonly vector: number;
  /** log10 of the records in the index. */
  readonly indexSize: number;
}

/**
 * The model's features for one chunk (`queryTerms`: the query's distinct index terms). A price
 * or time-of-day term the chunk answers with a stated value counts as contained.
 */
export function guardFeatures(
  chunk: GuardChunk,
  queryTerms: ReadonlySet<string>,
  indexSize: number,
  cosineRange: readonly [number, number] = DEFAULT_COSINE_RANGE,
): GuardFeatures {
  const missing = missingTerms(chunkIndexTerms(chunk.text), queryTerms);
  // A price or time-of-day term counts as contained when the chunk states such a value.
  const matched =
    queryTerms.size -
    missing.length +
    (missing.length === 0 ? 0 : answeredByType(missing, chunk.text).size);
  return {
    matchedShare: queryTerms.size === 0 ? 0 : matched / queryTerms.size,
    matchedTerms: Math.log1p(matched),
    vector: vectorFeature(chunk.vectorScore, cosineRange),
    indexSize: Math.log10(Math.max(1, indexSize)),
  };
}

/** The cosine rescaled from the embedder's range to [0, 1] (0 without one). */
function vectorFeature(score: number | null, [floor, ceiling]: readonly [number, number]): number {
  return score === null ? 0 : clamp01((score - floor) / (ceiling - floor));
}

/** The model's linear score of a chunk's features (the probability's logit). */
function guardLogit(features: GuardFeatures, model: GuardModel): number {
  return (
    model.bias +
    model.matchedShare * features.matchedShare +
    model.matchedTerms * features.matchedTerms +
    model.vector * features.vector +
    model.indexSize * features.indexSize
  );
}

/** Answer probability of a chunk's features under the model. */
export function guardProbability(
  features: GuardFeatures,
  model: GuardModel = DEFAULT_GUARD_MODEL,
): number {
  return 1 / (1 + Math.exp(-guardLogit(features, model)));
}

// A chunk is left unanalysed when even every query term would leave its logit this far below
// the best one: far more than the rounding of the sums, so its probability is below the best.
const BOUND_MARGIN = 1e-9;

/**
 * The best answer probability among the chunks. Chunks are read by their vector feature, best
 * first, and a chunk is not analysed when its probability with every query term matched (the
 * most any chunk can reach; the features only grow with the terms matched) stays below the best
 * so far (for a model whose term weights are not negative): the result is the maximum over
 * all chunks. With `enough`, the first probability at or above it is returned at once.
 */
function bestProbability(
  chunks: readonly GuardChunk[],
  queryTerms: ReadonlySet<string>,
  indexSize: number,
  cosineRange: readonly [number, number] = DEFAULT_COSINE_RANGE,
  model: GuardModel,
  enough = Infinity,
): number {
  const scaledIndexSize = Math.log10(Math.max(1, indexSize));
  const ranked = chunks
    .map((chunk) => ({ chunk, vector: vectorFeature(chunk.vectorScore, cosineRange) }))
    .sort((a, b) => b.vector - a.vector);
  // The bound holds while matching more terms cannot lower the logit.
  const bounded = model.matchedShare >= 0 && model.matchedTerms >= 0;
  let best = -Infinity;
  let bestLogit = -Infinity;
  for (const { chunk, vector } of ranked) {
    const most = guardLogit(
      {
        matchedShare: 1,
        matchedTerms: Math.log1p(queryTerms.size),
        vector,
        indexSize: scaledIndexSize,
      },
      model,
    );
    if (bounded && most < bestLogit - BOUND_MARGIN) continue;
    const features = guardFeatures(chunk, queryTerms, indexSize, cosineRange);
    const probability = guardProbability(features, model);
    if (probability >= enough) return probability;
    best = Math.max(best, probability);
    bestLogit = Math.max(bestLogit, guardLogit(features, model));
  }
  return best;
}

/** Distinct index terms of a text (stemmed, stop words removed, as the keyword index sees it). */
export function indexTerms(text: string): Set<string> {
  return new Set(stemmedTerms(text));
}

/**
 * The query terms a chunk's index terms lack, in the query's order. The terms are scanned
 * once, stopping when every query term was seen (no set of the chunk's terms is built).
 */
function missingTerms(chunkTerms: readonly string[], queryTerms: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const term of chunkTerms) {
    if (queryTerms.has(term)) {
      found.add(term);
      if (found.size === queryTerms.size) break;
    }
  }
  const missing: string[] = [];
  if (found.size < queryTerms.size)
    for (const term of queryTerms) if (!found.has(term)) missing.push(term);
  return missing;
}

// The chunks a turn retrieves come back turn after turn, and analysing a chunk is most of the
// guard's cost: the terms of chunk texts seen at least twice are kept (shared, never mutated).
const chunkTerms = createSecondSightCache<readonly string[]>(4096);

/** The index terms of a chunk text, in order (`stemmedTerms`). */
function chunkIndexTerms(text: string): readonly string[] {
  return chunkTerms.get(text, () => stemmedTerms(text));
}

/**
 * Guard decision: refuse when nothing was retrieved; with `minSimilarity` set, when the best
 * score is below it; otherwise when no chunk's answer probability reaches the model's cut
 * (`evidence` is the best chunk's probability unless `bestEvidence` is false and it answers).
 */
export function decideGuard(input: GuardInput): GuardDecision {
  const model = input.model ?? DEFAULT_GUARD_MODEL;
  const adaptive = input.minSimilarity === undefined;
  const threshold = input.minSimilarity ?? model.cut;
  if (input.chunks.length === 0) {
    return { guard: true, reason: 'no-sources', evidence: 0, threshold, adaptive };
  }
  let evidence = input.topScore;
  if (adaptive) {
    const terms = indexTerms(input.query);
    evidence = bestProbability(
      input.chunks,
      terms,
      input.indexSize,
      input.cosineRange,
      model,
      input.bestEvidence === false ? model.cut : Infinity,
    );
  }
  const guard = evidence < threshold;
  return { guard, reason: guard ? 'low-similarity' : null, evidence, threshold, adaptive };
}
