/**
 * The ports the retrieval stage talks to (stores, embedder, caches, graph, reranker, learned
 * boost) and the query embedding through the cache.
 */
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import type { GraphStore } from '../../ports/graph-store.js';
import type { KeywordIndex } from '../../ports/keyword-index.js';
import type { Reranker } from '../../ports/reranker.js';
import type { VectorStore } from '../../ports/vector-store.js';
import type { EmbeddingCache } from '../embedding-cache.js';
import type { SearchCache } from './search-cache.js';

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
