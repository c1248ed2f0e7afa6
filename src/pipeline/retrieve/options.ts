/**
 * What the retrieval stage is asked: the fusion weights, graph expansion and the other options
 * of one retrieval, and their validation (a bad option is a `ValidationError` before any search).
 */
import { ValidationError } from '../../errors/index.js';
import type { MetadataFilter } from '../../ports/common.js';

/** Weights of the two ranked lists in the fusion. */
export interface FusionWeights {
  /** Weight of the vector search ranking. */
  readonly vector: number;
  /** Weight of the keyword search ranking. */
  readonly keyword: number;
  /** Weight of the graph-expansion ranking (default 0.3; used only with graph expansion). */
  readonly graph?: number | undefined;
}

/** Graph expansion: walk from the best hits' chunk nodes. */
export interface GraphExpansionOptions {
  /** Edges walked from each hit (2 reaches a cited document or a chunk sharing a term). */
  readonly depth: number;
  /** Edge types followed (default: all). */
  readonly edgeTypes?: readonly string[] | undefined;
}

/** What to retrieve and how. */
export interface RetrievalOptions {
  /** Namespace (tenant) searched; mandatory. */
  readonly namespace: string;
  /** Number of chunks to return. */
  readonly k: number;
  /** Widen up to this many chunks when the top scores are close together; `k` disables it. */
  readonly maxK: number;
  /** List length asked of each search before fusion (e.g. 50). */
  readonly candidates: number;
  /** Chunks whose `score` is below are dropped (tail cut); 0 keeps all. */
  readonly threshold: number;
  /** Only chunks whose metadata matches. */
  readonly filter?: MetadataFilter | undefined;
  /** Weighted RRF weights (default `DEFAULT_FUSION_WEIGHTS`). */
  readonly weights?: FusionWeights | undefined;
  /** RRF rank constant (default `DEFAULT_RRF_K`). */
  readonly rrfK?: number | undefined;
  /** Widen to `maxK` when the top-k scores lie within this spread (default 0.05). */
  readonly widenSpread?: number | undefined;
  /**
   * Cosine similarities mapped to score 0 and 1 (default `DEFAULT_COSINE_RANGE`, measured
   * for the hashing embedder); set it for another embedder, whose cosines spread differently.
   */
  readonly cosineRange?: readonly [number, number] | undefined;
  /** Expand the best hits through the graph (relational / hybrid routes); needs `graphStore`. */
  readonly graph?: GraphExpansionOptions | null | undefined;
  /** Propagate scores over the graph around the candidates (graph rerank); needs `graphStore`. */
  readonly graphRerank?: boolean | undefined;
  /** How strongly the graph boost reorders: rank score × graphBoost^weight (default 0.25, tuned on SciFact train). */
  readonly graphRerankWeight?: number | undefined;
  /** Propagation rounds, 1 or 2 (default 2). */
  readonly graphRounds?: number | undefined;
  /** Best fused hits the graph is walked from (default 20). */
  readonly graphSeeds?: number | undefined;
  /** Ask `deps.reranker` to reorder the best candidates (ignored without one). */
  readonly rerank?: boolean | undefined;
  /** Candidates given to the reranker (default 20). */
  readonly rerankCandidates?: number | undefined;
  /**
   * The user the chunks are retrieved for: another user's unpublished correction is never
   * returned (undefined: no user's). See `retrieve/visibility.ts`.
   */
  readonly viewer?: string | undefined;
  /** Cancels the retrieval. */
  readonly signal?: AbortSignal | undefined;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path} ${message}`, [{ path, message }]);
}

/** Checks the query and the options; throws `ValidationError` for the first bad one. */
export function checkOptions(query: string, options: RetrievalOptions): void {
  if (typeof query !== 'string' || query.trim().length === 0) {
    throw invalid('query', 'must be a non-empty string');
  }
  const positive = (value: number, path: string): void => {
    if (!Number.isInteger(value) || value < 1) throw invalid(path, 'must be a positive integer');
  };
  positive(options.k, 'k');
  positive(options.maxK, 'maxK');
  positive(options.candidates, 'candidates');
  if (options.maxK < options.k) throw invalid('maxK', 'must be ≥ k');
  if (!(options.threshold >= 0 && options.threshold <= 1)) {
    throw invalid('threshold', 'must be in [0, 1]');
  }
  const weights = options.weights;
  if (weights !== undefined) {
    const ok = (value: number): boolean => Number.isFinite(value) && value >= 0;
    if (!ok(weights.vector) || !ok(weights.keyword) || weights.vector + weights.keyword === 0) {
      throw invalid('weights', 'must be finite, ≥ 0 and not both 0');
    }
    if (weights.graph !== undefined && !ok(weights.graph)) {
      throw invalid('weights.graph', 'must be finite and ≥ 0');
    }
  }
  if (options.rrfK !== undefined && !(options.rrfK > 0)) throw invalid('rrfK', 'must be > 0');
  if (
    options.graph != null &&
    !(Number.isInteger(options.graph.depth) && options.graph.depth >= 1)
  ) {
    throw invalid('graph.depth', 'must be an integer ≥ 1');
  }
  const optionalPositive = (value: number | undefined, path: string): void => {
    if (value !== undefined) positive(value, path);
  };
  optionalPositive(options.graphSeeds, 'graphSeeds');
  optionalPositive(options.rerankCandidates, 'rerankCandidates');
  optionalPositive(options.graphRounds, 'graphRounds');
  const gamma = options.graphRerankWeight;
  if (gamma !== undefined && !(Number.isFinite(gamma) && gamma >= 0)) {
    throw invalid('graphRerankWeight', 'must be finite and ≥ 0');
  }
  const range = options.cosineRange;
  if (range !== undefined && !(range[0] < range[1] && range[0] >= -1 && range[1] <= 1)) {
    throw invalid('cosineRange', 'must be [floor, ceiling] with -1 ≤ floor < ceiling ≤ 1');
  }
}
