/**
 * The retrieval stage: embed the query (through the cache), run the vector and keyword
 * searches in parallel, fuse their rankings with weighted reciprocal-rank fusion, give each
 * chunk a calibrated relevance `score` in [0, 1], cut the tail under the threshold and
 * widen k when the top scores are close together. The parts live in `retrieve/`: options and
 * their checks, deps, result types, the search-results cache, fusion, relevance and the
 * candidates; pure helpers are exported from there for tests.
 */
import { throwIfAborted } from '../errors/index.js';
import type { KeywordMatch } from '../ports/keyword-index.js';
import type { VectorMatch } from '../ports/vector-store.js';
import { ALL_EDGE_TYPES, chunkNodeId } from '../query/graph-model.js';
import {
  collectNeighborhoods,
  expansionScores,
  graphSupport,
  linkStrength,
  propagateScores,
  type GraphBoost,
  type GraphLink,
} from './graph-rerank.js';
import {
  clampBoost,
  DEFAULT_GRAPH_RERANK_WEIGHT,
  DEFAULT_GRAPH_SEEDS,
  DEFAULT_GRAPH_WEIGHT,
  DEFAULT_RERANK_CANDIDATES,
  fetchExpansion,
  GRAPH_INHERITANCE,
  toChunk,
  typeOf,
  withCoverage,
  type Candidate,
} from './retrieve/candidates.js';
import { embedQuery, type RetrievalDeps } from './retrieve/deps.js';
import {
  DEFAULT_FUSION_WEIGHTS,
  DEFAULT_RRF_K,
  reciprocalRankFusion,
  type RankedList,
} from './retrieve/fuse.js';
import { checkOptions, type RetrievalOptions } from './retrieve/options.js';
import {
  adaptiveK,
  DEFAULT_COSINE_RANGE,
  DEFAULT_WIDEN_SPREAD,
  relevanceScore,
} from './retrieve/relevance.js';
import type { RetrievalResult } from './retrieve/result.js';
import { searchCacheKey } from './retrieve/search-cache.js';
import { visibleMatches, visibleTo } from './retrieve/visibility.js';

export { DEFAULT_GRAPH_RERANK_WEIGHT } from './retrieve/candidates.js';
export type { LearnedBoost, RetrievalDeps } from './retrieve/deps.js';
export { DEFAULT_FUSION_WEIGHTS, DEFAULT_RRF_K } from './retrieve/fuse.js';
export type { FusionWeights, RetrievalOptions } from './retrieve/options.js';
export { DEFAULT_WIDEN_SPREAD, RECOMMENDED_MIN_SIMILARITY } from './retrieve/relevance.js';
export type { RetrievalResult, RetrievedChunk } from './retrieve/result.js';
export type { SearchCache } from './retrieve/search-cache.js';

/**
 * Runs the retrieval stage: parallel vector and keyword searches; for graph routes, expansion
 * of the best hits through the knowledge graph; weighted RRF of the lists; graph rerank,
 * learned boost and the optional reranker; relevance scores, threshold and adaptive k.
 */
export async function retrieve(
  query: string,
  deps: RetrievalDeps,
  options: RetrievalOptions,
): Promise<RetrievalResult> {
  checkOptions(query, options);
  const { namespace, candidates, filter, signal } = options;
  throwIfAborted(signal);
  const weights = options.weights ?? DEFAULT_FUSION_WEIGHTS;
  const graphStore = deps.graphStore;
  const expansion = graphStore === undefined ? null : (options.graph ?? null);
  const useGraphRerank = graphStore !== undefined && options.graphRerank === true;
  const needVector = weights.vector > 0 || deps.learnedBoost !== undefined;
  const vectorSearch = async (): Promise<{
    matches: VectorMatch[];
    cacheHit: boolean;
    vector: Float32Array | null;
  }> => {
    if (!needVector) return { matches: [], cacheHit: false, vector: null };
    const { vector, cacheHit } = await embedQuery(query, deps, signal);
    throwIfAborted(signal);
    const matches =
      weights.vector === 0
        ? []
        : await deps.vectorStore.query(namespace, vector, { k: candidates, filter, signal });
    return { matches, cacheHit, vector };
  };
  const keywordSearch = async (): Promise<KeywordMatch[]> =>
    weights.keyword === 0
      ? []
      : withCoverage(
          await deps.keywordIndex.search(namespace, query, { k: candidates, filter, signal }),
        );
  const searchKey =
    deps.searchCache === undefined
      ? undefined
      : searchCacheKey(query, options, {
          vector: weights.vector > 0,
          keyword: weights.keyword > 0,
          embed: needVector,
        });
  const cached = searchKey === undefined ? undefined : deps.searchCache?.get(searchKey);
  let vectorResult: {
    matches: readonly VectorMatch[];
    cacheHit: boolean;
    vector: Float32Array | null;
  };
  let keywordMatches: readonly KeywordMatch[];
  if (cached !== undefined) {
    vectorResult = { matches: cached.vectorMatches, cacheHit: true, vector: cached.vector };
    keywordMatches = cached.keywordMatches;
  } else {
    [vectorResult, keywordMatches] = await Promise.all([vectorSearch(), keywordSearch()]);
    throwIfAborted(signal);
    if (searchKey !== undefined) {
      deps.searchCache?.set(searchKey, {
        vectorMatches: vectorResult.matches,
        keywordMatches,
        vector: vectorResult.vector,
      });
    }
  }
  // Another user's private correction is dropped here, after the shared cache.
  const vectorMatches = visibleMatches(vectorResult.matches, options.viewer);
  keywordMatches = visibleMatches(keywordMatches, options.viewer);
  const rrfK = options.rrfK ?? DEFAULT_RRF_K;
  const lists: RankedList[] = [
    { ids: vectorMatches.map((match) => match.id), weight: weights.vector },
    { ids: keywordMatches.map((match) => match.id), weight: weights.keyword },
  ];
  let fused = reciprocalRankFusion(lists, rrfK);
  const byVector = new Map(vectorMatches.map((match) => [match.id, match]));
  const byKeyword = new Map(keywordMatches.map((match) => [match.id, match]));

  // Graph: walk from the best hits once; the walk serves both expansion and rerank.
  let boosts = new Map<string, GraphBoost>();
  let neighborhoods = new Map<string, GraphLink[]>();
  const expanded = new Map<string, { link: GraphLink; from: string }>();
  let graphHits = 0;
  if (graphStore !== undefined && (expansion !== null || useGraphRerank)) {
    const seeds = fused.slice(0, options.graphSeeds ?? DEFAULT_GRAPH_SEEDS);
    neighborhoods = await collectNeighborhoods(
      graphStore,
      seeds.map((item) => item.id),
      {
        namespace,
        depth: expansion?.depth ?? 2,
        edgeTypes: expansion?.edgeTypes ?? ALL_EDGE_TYPES,
        signal,
      },
    );
    const seedScores = new Map(seeds.map((item) => [item.id, item.score]));
    if (expansion !== null) {
      const reached = expansionScores(seedScores, neighborhoods).slice(
        0,
        Math.max(candidates, DEFAULT_GRAPH_SEEDS),
      );
      const found = await fetchExpansion(query, vectorResult.vector, reached, deps, options);
      throwIfAborted(signal);
      const hidden = new Set(
        [...found.vector, ...found.keyword]
          .filter((match) => !visibleTo(match.metadata, options.viewer))
          .map((match) => match.id),
      );
      if (hidden.size > 0) {
        found.vector = found.vector.filter((match) => !hidden.has(match.id));
        found.keyword = found.keyword.filter((match) => !hidden.has(match.id));
        found.ids = found.ids.filter((id) => !hidden.has(id));
      }
      for (const match of found.vector) if (!byVector.has(match.id)) byVector.set(match.id, match);
      for (const match of found.keyword) {
        if (!byKeyword.has(match.id)) byKeyword.set(match.id, match);
      }
      for (const [id, value] of found.links) expanded.set(id, value);
      graphHits = found.ids.length;
      fused = reciprocalRankFusion(
        [...lists, { ids: found.ids, weight: weights.graph ?? DEFAULT_GRAPH_WEIGHT }],
        rrfK,
      );
    }
    if (useGraphRerank) boosts = propagateScores(seedScores, neighborhoods, options.graphRounds);
  }

  const cosineRange = options.cosineRange ?? DEFAULT_COSINE_RANGE;
  const gamma = options.graphRerankWeight ?? DEFAULT_GRAPH_RERANK_WEIGHT;
  const queryVector = vectorResult.vector;
  const relevanceOf = (id: string): number => {
    const keyword = byKeyword.get(id);
    return relevanceScore(
      byVector.get(id)?.score ?? null,
      keyword === undefined ? null : (keyword.coverage ?? null),
      cosineRange,
    );
  };
  let ranked: Candidate[] = fused.map((item) => {
    const vector = byVector.get(item.id);
    const keyword = byKeyword.get(item.id);
    const boost = boosts.get(item.id);
    const graphBoost = boost?.graphBoost ?? 1;
    const learnedBoost =
      deps.learnedBoost !== undefined && queryVector !== null
        ? clampBoost(deps.learnedBoost(item.id, queryVector))
        : 1;
    const reach = expanded.get(item.id);
    return {
      item,
      vector,
      keyword,
      // A chunk the graph reached inherits part of the relevance of the hit it was reached from.
      score: Math.max(
        relevanceOf(item.id),
        reach === undefined
          ? 0
          : relevanceOf(reach.from) * linkStrength(reach.link) * GRAPH_INHERITANCE,
      ),
      rankScore: item.score * graphBoost ** gamma * learnedBoost,
      graphBoost,
      learnedBoost,
      rerankScore: null,
    };
  });
  if (useGraphRerank || deps.learnedBoost !== undefined) {
    ranked.sort((a, b) => b.rankScore - a.rankScore);
  }
  let reranked = false;
  if (options.rerank === true && deps.reranker !== undefined && ranked.length > 1) {
    const head = ranked.slice(0, options.rerankCandidates ?? DEFAULT_RERANK_CANDIDATES);
    try {
      const results = await deps.reranker.rerank(
        query,
        head.map((candidate) => ({
          id: candidate.item.id,
          text: String(candidate.vector?.metadata.text ?? candidate.keyword?.metadata.text ?? ''),
          score: candidate.rankScore,
        })),
        { signal },
      );
      const scores = new Map(results.map((result) => [result.id, result.score]));
      const order = (candidate: Candidate): number => scores.get(candidate.item.id) ?? -1;
      const rescored = head
        .map((candidate) => ({ ...candidate, rerankScore: scores.get(candidate.item.id) ?? null }))
        .sort((a, b) => order(b) - order(a));
      ranked = [...rescored, ...ranked.slice(head.length)];
      reranked = true;
    } catch (error) {
      // A failing reranker keeps the fused order; aborting still aborts.
      if (signal?.aborted) throw error;
    }
  }
  ranked = ranked.filter(({ score }) => score > 0 && score >= options.threshold);
  const k = adaptiveK(
    ranked.map(({ score }) => score),
    options.k,
    options.maxK,
    options.widenSpread ?? DEFAULT_WIDEN_SPREAD,
  );
  // What the ranking does not read is written for the chunks returned only.
  const graphUsed = expansion !== null || useGraphRerank;
  const chunks = ranked.slice(0, k).map((candidate) => {
    const id = candidate.item.id;
    const reach = expanded.get(id);
    return toChunk(
      candidate,
      typeOf(candidate.item.ranks),
      graphUsed
        ? {
            nodeId: chunkNodeId(id),
            relatedNodeCount: neighborhoods.get(id)?.length ?? (reach === undefined ? 0 : 1),
            pathDepth: reach?.link.depth ?? 0,
          }
        : null,
    );
  });
  return {
    chunks,
    topScore: chunks.reduce((best, chunk) => Math.max(best, chunk.score), 0),
    vectorHits: vectorMatches.length,
    keywordHits: keywordMatches.length,
    graphHits,
    graphSupport: useGraphRerank
      ? graphSupport(chunks.map((chunk) => chunk.graphBoost))
      : undefined,
    reranked,
    cacheHit: vectorResult.cacheHit,
    searchCacheHit: cached !== undefined,
    widened: chunks.length > options.k,
  };
}
