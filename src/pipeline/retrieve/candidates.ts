/**
 * The candidates of one retrieval: what the ranking knows about each, how a candidate becomes a
 * `RetrievedChunk`, the boost limits and ranking defaults, and the fetch of the chunks the
 * graph expansion reached.
 */
import type { MetadataFilter } from '../../ports/common.js';
import type { KeywordMatch } from '../../ports/keyword-index.js';
import type { VectorMatch } from '../../ports/vector-store.js';
import type { expansionScores, GraphLink } from '../graph-rerank.js';
import type { RetrievalDeps } from './deps.js';
import type { FusedItem } from './fuse.js';
import type { RetrievalOptions } from './options.js';
import { clamp01 } from './relevance.js';
import type { ChunkGraphContext, RetrievedChunk } from './result.js';

/** The value when it is a string, else null. */
export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Keyword coverage when the index gives none: BM25 score relative to the best match. */
export function withCoverage(matches: readonly KeywordMatch[]): KeywordMatch[] {
  const best = matches[0]?.score ?? 0;
  return matches.map((match) =>
    match.coverage !== undefined
      ? match
      : { ...match, coverage: best > 0 ? clamp01(match.score / best) : 0 },
  );
}

/**
 * What the ranking knows about one candidate (its type and graph context are written for the
 * chunks returned only: most candidates are cut by the threshold and `k`).
 */
export interface Candidate {
  readonly item: FusedItem;
  readonly vector: VectorMatch | undefined;
  readonly keyword: KeywordMatch | undefined;
  readonly score: number;
  readonly rankScore: number;
  readonly graphBoost: number;
  readonly learnedBoost: number;
  readonly rerankScore: number | null;
}

/** The chunk a ranked candidate becomes, with its type and graph context. */
export function toChunk(
  candidate: Candidate,
  type: RetrievedChunk['type'],
  graphContext: ChunkGraphContext | null,
): RetrievedChunk {
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
    type,
    graphBoost: candidate.graphBoost,
    learnedBoost: candidate.learnedBoost,
    rerankScore: candidate.rerankScore,
    graphContext,
  };
}

/** Which searches found a fused item, from its ranks (vector, keyword, graph). */
export function typeOf(ranks: readonly (number | null)[]): RetrievedChunk['type'] {
  const [vector, keyword, graph] = ranks.map((rank) => rank !== null && rank !== undefined);
  const found = [vector, keyword, graph].filter(Boolean).length;
  if (found > 1) return 'hybrid';
  return graph ? 'graph' : vector ? 'vector' : 'keyword';
}

/** Default weight of the graph-expansion list in the fusion. */
export const DEFAULT_GRAPH_WEIGHT = 0.3;
/** Share of a hit's relevance a chunk reached from it through the graph inherits. */
export const GRAPH_INHERITANCE = 0.5;
/**
 * Default exponent of the graph boost in the ranking. On SciFact train, 0.1–0.25 is neutral
 * (nDCG@10 0.692 vs 0.691) and 0.5 / 1 hurt (0.686 / 0.666): abstracts share no links, so the
 * graph's term links add little that BM25 has not already counted.
 */
export const DEFAULT_GRAPH_RERANK_WEIGHT = 0.25;
/** Default number of best fused hits the graph is walked from. */
export const DEFAULT_GRAPH_SEEDS = 10;
/** Default number of candidates given to the reranker. */
export const DEFAULT_RERANK_CANDIDATES = 20;
/** A learned boost clamped to [0.5, 2] (1 when not finite). */
export const clampBoost = (value: number): number =>
  Number.isFinite(value) ? Math.min(2, Math.max(0.5, value)) : 1;

/** Chunks reached by the graph expansion, fetched from the stores with the query's scores. */
export async function fetchExpansion(
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
