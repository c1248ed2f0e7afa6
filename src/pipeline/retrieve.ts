/**
 * The retrieval stage: embed the query (through the cache), run the vector and keyword
 * searches in parallel, fuse their rankings with weighted reciprocal-rank fusion, give each
 * chunk a calibrated relevance `score` in [0, 1], cut the tail under the threshold and
 * widen k when the top scores are close together. Pure helpers are exported for tests.
 */
import { ValidationError, throwIfAborted } from '../errors/index.js';
import type { Metadata, MetadataFilter } from '../ports/common.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { GraphStore } from '../ports/graph-store.js';
import type { KeywordIndex, KeywordMatch } from '../ports/keyword-index.js';
import type { Reranker } from '../ports/reranker.js';
import type { VectorMatch, VectorStore } from '../ports/vector-store.js';
import { ALL_EDGE_TYPES, chunkNodeId } from '../query/graph-model.js';
import type { LruCache } from '../util/lru.js';
import type { EmbeddingCache } from './embedding-cache.js';
import {
  collectNeighborhoods,
  expansionScores,
  graphSupport,
  linkStrength,
  propagateScores,
  type GraphBoost,
  type GraphLink,
} from './graph-rerank.js';

/** Learned rerank boost of a chunk for a query, in [0.5, 2] (1 = neutral); filled by learning. */
export type LearnedBoost = (chunkId: string, queryVector: Float32Array) => number;

/** The ports retrieval talks to. */
export interface RetrievalDeps {
  /** Where chunk embeddings live. */
  readonly vectorStore: VectorStore;
  /** Where chunk texts are indexed by their words. */
  readonly keywordIndex: KeywordIndex;
  /** Embeds the query; must be the embedder the chunks were indexed with. */
  readonly embedder: EmbeddingProvider;
  /** Query-embedding cache; omitted: every query is embedded. */
  readonly embeddingCache?: EmbeddingCache | undefined;
  /** The knowledge graph; omitted: no graph expansion or graph rerank. */
  readonly graphStore?: GraphStore | undefined;
  /** Optional cross-encoder or hosted reranker, used when the options ask for it. */
  readonly reranker?: Reranker | undefined;
  /** Learned boost per chunk (default: 1 for every chunk). */
  readonly learnedBoost?: LearnedBoost | undefined;
  /**
   * Search-results cache (seed 003): the vector and keyword candidate lists of a query, so a
   * repeated question skips both searches. Whoever changes the index clears it; omitted: no
   * cache.
   */
  readonly searchCache?: SearchCache | undefined;
}

/** What the search-results cache holds per query: both candidate lists and the query vector. */
export interface CachedSearch {
  readonly vectorMatches: readonly VectorMatch[];
  readonly keywordMatches: readonly KeywordMatch[];
  readonly vector: Float32Array | null;
}

/** The search-results cache: first-stage candidate lists by {@link searchCacheKey}. */
export type SearchCache = LruCache<CachedSearch>;

/**
 * The cache key of a first-stage search: everything the two candidate lists depend on
 * (namespace, the query text, the list length, the filter, which searches run). Graph
 * expansion, the learned boost and the reranker run after the cache, so feedback never
 * makes an entry stale; only a change of the index does.
 */
export function searchCacheKey(
  query: string,
  options: Pick<RetrievalOptions, 'namespace' | 'candidates' | 'filter'>,
  searches: { readonly vector: boolean; readonly keyword: boolean; readonly embed: boolean },
): string {
  return JSON.stringify([
    options.namespace,
    options.candidates,
    searches.vector,
    searches.keyword,
    searches.embed,
    options.filter ?? null,
    query,
  ]);
}

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
  /** Cancels the retrieval. */
  readonly signal?: AbortSignal | undefined;
}

/** Where a chunk sits in the knowledge graph. */
export interface ChunkGraphContext {
  /** Its graph node. */
  readonly nodeId: string;
  /** Chunks and documents found around it. */
  readonly relatedNodeCount: number;
  /** Path length from the nearest search hit (0 = a hit itself). */
  readonly pathDepth: number;
}

/** A retrieved chunk with its scores. */
export interface RetrievedChunk {
  /** The chunk id in both stores. */
  readonly chunkId: string;
  /** The document it belongs to (`documentId` metadata; the chunk id when absent). */
  readonly documentId: string;
  /** The chunk text (`text` metadata). */
  readonly text: string;
  /** Document title, when known. */
  readonly title: string | null;
  /** Document location, when known. */
  readonly uri: string | null;
  /** The record metadata minus `text`. */
  readonly metadata: Metadata;
  /** Calibrated relevance in [0, 1] (see `relevanceScore`); guard mode compares the best one. */
  readonly score: number;
  /** Cosine similarity, when the vector search found the chunk. */
  readonly vectorScore: number | null;
  /** Keyword coverage in [0, 1], when the keyword search found the chunk. */
  readonly keywordScore: number | null;
  /** Weighted RRF score. */
  readonly fusedScore: number;
  /** Which searches found it (`graph`: only the graph expansion; `hybrid`: several). */
  readonly type: 'vector' | 'keyword' | 'graph' | 'hybrid';
  /** Graph rerank multiplier in [1, 2] (1 without graph rerank). */
  readonly graphBoost: number;
  /** Learned multiplier in [0.5, 2] (1 without the hook). */
  readonly learnedBoost: number;
  /** The reranker's score in [0, 1], when a reranker ordered it. */
  readonly rerankScore: number | null;
  /** Its place in the graph, when the graph was used. */
  readonly graphContext: ChunkGraphContext | null;
}

/** The outcome of one retrieval. */
export interface RetrievalResult {
  /** The chunks, best fused rank first. */
  readonly chunks: RetrievedChunk[];
  /** Best `score` among the returned chunks (0 when none). */
  readonly topScore: number;
  /** Matches the vector search returned. */
  readonly vectorHits: number;
  /** Matches the keyword search returned. */
  readonly keywordHits: number;
  /** Chunks the graph expansion added to the fusion. */
  readonly graphHits: number;
  /**
   * Graph support of the returned chunks in [0, 1] for `scoreConfidence({ graphSupport })`;
   * undefined without graph rerank (no graph signal).
   */
  readonly graphSupport: number | undefined;
  /** True when the reranker reordered the candidates. */
  readonly reranked: boolean;
  /** True when the query embedding came from the cache. */
  readonly cacheHit: boolean;
  /** True when both candidate lists came from the search-results cache. */
  readonly searchCacheHit: boolean;
  /** True when adaptive k widened the result past `k`. */
  readonly widened: boolean;
}

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

/** Default spread under which the top-k scores count as "close together". */
export const DEFAULT_WIDEN_SPREAD = 0.05;

/**
 * A fixed guard threshold on `topScore` for the default offline stack (hashing embedder +
 * BM25), measured on SciFact questions vs off-topic questions. Not the default any more: unset
 * `minSimilarity` lets the index-adaptive guard (`src/pipeline/guard.ts`) decide, which also
 * holds on small corpora (trust benchmark, `npm run bench:trust`).
 */
export const RECOMMENDED_MIN_SIMILARITY = 0.35;

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
  const bestRank = (ranks: readonly (number | null)[]): number =>
    Math.min(...ranks.map((rank) => rank ?? Infinity));
  return [...items]
    .map(([id, item]) => ({ id, score: item.score, ranks: item.ranks }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        bestRank(a.ranks) - bestRank(b.ranks) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}

/**
 * Cosine similarities of the hashing embedder mapped to 0 and 1: at or below 0.1 means
 * unrelated (off-topic median top cosine 0.12), at or above 0.5 as related as it gets
 * (SciFact claims: median top cosine 0.32, p90 0.46).
 */
export const DEFAULT_COSINE_RANGE: readonly [number, number] = [0.1, 0.5];

function clamp01(value: number): number {
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

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path} ${message}`, [{ path, message }]);
}

function checkOptions(query: string, options: RetrievalOptions): void {
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

/** Embeds a query through the cache (shared with the router). */
export async function embedQuery(
  query: string,
  deps: RetrievalDeps,
  signal: AbortSignal | undefined,
): Promise<{ vector: Float32Array; cacheHit: boolean }> {
  const cached = deps.embeddingCache?.get(deps.embedder.id, query);
  if (cached !== undefined) return { vector: cached, cacheHit: true };
  const [vector] = await deps.embedder.embed([query], { signal });
  if (vector === undefined) throw new Error(`Embedder '${deps.embedder.name}' returned no vector`);
  deps.embeddingCache?.set(deps.embedder.id, query, vector);
  return { vector, cacheHit: false };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Keyword coverage when the index gives none: BM25 score relative to the best match. */
function withCoverage(matches: readonly KeywordMatch[]): KeywordMatch[] {
  const best = matches[0]?.score ?? 0;
  return matches.map((match) =>
    match.coverage !== undefined
      ? match
      : { ...match, coverage: best > 0 ? clamp01(match.score / best) : 0 },
  );
}

/** What the ranking knows about one candidate. */
interface Candidate {
  readonly item: FusedItem;
  readonly vector: VectorMatch | undefined;
  readonly keyword: KeywordMatch | undefined;
  readonly type: RetrievedChunk['type'];
  readonly score: number;
  readonly rankScore: number;
  readonly graphBoost: number;
  readonly learnedBoost: number;
  readonly rerankScore: number | null;
  readonly graphContext: ChunkGraphContext | null;
}

function toChunk(candidate: Candidate): RetrievedChunk {
  const record = candidate.vector?.metadata ?? candidate.keyword?.metadata ?? {};
  const { text, ...metadata } = record;
  const id = candidate.item.id;
  return {
    chunkId: id,
    documentId: stringOrNull(record.documentId) ?? id,
    text: typeof text === 'string' ? text : '',
    title: stringOrNull(record.title),
    uri: stringOrNull(record.uri),
    metadata,
    score: candidate.score,
    vectorScore: candidate.vector?.score ?? null,
    keywordScore: candidate.keyword === undefined ? null : (candidate.keyword.coverage ?? null),
    fusedScore: candidate.item.score,
    type: candidate.type,
    graphBoost: candidate.graphBoost,
    learnedBoost: candidate.learnedBoost,
    rerankScore: candidate.rerankScore,
    graphContext: candidate.graphContext,
  };
}

function typeOf(ranks: readonly (number | null)[]): RetrievedChunk['type'] {
  const [vector, keyword, graph] = ranks.map((rank) => rank !== null && rank !== undefined);
  const found = [vector, keyword, graph].filter(Boolean).length;
  if (found > 1) return 'hybrid';
  return graph ? 'graph' : vector ? 'vector' : 'keyword';
}

const DEFAULT_GRAPH_WEIGHT = 0.3;
/** Share of a hit's relevance a chunk reached from it through the graph inherits. */
export const GRAPH_INHERITANCE = 0.5;
/**
 * Default exponent of the graph boost in the ranking. On SciFact train, 0.1–0.25 is neutral
 * (nDCG@10 0.692 vs 0.691) and 0.5 / 1 hurt (0.686 / 0.666): abstracts share no links, so the
 * graph's term links add little that BM25 has not already counted.
 */
export const DEFAULT_GRAPH_RERANK_WEIGHT = 0.25;
const DEFAULT_GRAPH_SEEDS = 10;
const DEFAULT_RERANK_CANDIDATES = 20;
const clampBoost = (value: number): number =>
  Number.isFinite(value) ? Math.min(2, Math.max(0.5, value)) : 1;

/** Chunks reached by the graph expansion, fetched from the stores with the query's scores. */
async function fetchExpansion(
  query: string,
  queryVector: Float32Array | null,
  reached: ReturnType<typeof expansionScores>,
  deps: RetrievalDeps,
  options: RetrievalOptions,
): Promise<{
  ids: string[];
  vector: VectorMatch[];
  keyword: KeywordMatch[];
  links: Map<string, { link: GraphLink; from: string }>;
}> {
  const documentIds = [...new Set(reached.map(({ link }) => link.documentId))];
  if (documentIds.length === 0) return { ids: [], vector: [], keyword: [], links: new Map() };
  const { namespace, signal } = options;
  const userFilter = options.filter;
  const filter: MetadataFilter =
    userFilter?.documentId === undefined
      ? { ...userFilter, documentId: { $in: documentIds } }
      : userFilter;
  const k = Math.min(1000, documentIds.length * 8);
  const [vector, keyword] = await Promise.all([
    queryVector === null
      ? Promise.resolve([])
      : deps.vectorStore.query(namespace, queryVector, { k, filter, signal }),
    deps.keywordIndex
      .search(namespace, query, { k, filter, signal })
      .then((matches) => withCoverage(matches)),
  ]);
  const inReach = new Set(documentIds);
  const chunksOf = new Map<string, string[]>();
  for (const match of [...vector, ...keyword]) {
    const documentId = stringOrNull(match.metadata.documentId) ?? match.id;
    if (!inReach.has(documentId)) continue;
    const list = chunksOf.get(documentId) ?? [];
    if (!list.includes(match.id)) list.push(match.id);
    chunksOf.set(documentId, list);
  }
  const ids: string[] = [];
  const links = new Map<string, { link: GraphLink; from: string }>();
  for (const { link, from } of reached) {
    const found = chunksOf.get(link.documentId) ?? [];
    const targets =
      link.chunkId === null ? found.slice(0, 1) : found.filter((id) => id === link.chunkId);
    for (const id of targets) {
      if (links.has(id)) continue;
      links.set(id, { link, from });
      ids.push(id);
    }
  }
  return { ids, vector, keyword, links };
}

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
  const vectorMatches = vectorResult.matches;
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
    const graphUsed = expansion !== null || useGraphRerank;
    return {
      item,
      vector,
      keyword,
      type: typeOf(item.ranks),
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
      graphContext: graphUsed
        ? {
            nodeId: chunkNodeId(item.id),
            relatedNodeCount: neighborhoods.get(item.id)?.length ?? (reach === undefined ? 0 : 1),
            pathDepth: reach?.link.depth ?? 0,
          }
        : null,
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
  const chunks = ranked.slice(0, k).map(toChunk);
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
