/**
 * What the retrieval stage returns: the retrieved chunks with their scores and where they sit
 * in the knowledge graph, and the counts and flags of one retrieval.
 */
import type { Metadata } from '../../ports/common.js';

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
