import type { CallOptions } from './common.js';

/** A candidate passed to a reranker. */
export interface RerankCandidate {
  /** Chunk id. */
  readonly id: string;
  /** Chunk text. */
  readonly text: string;
  /** Score before reranking, higher is better. */
  readonly score: number;
}

/** A reranked candidate. */
export interface RerankResult {
  /** Chunk id, one of the candidates'. */
  readonly id: string;
  /** Relevance in [0, 1]; higher is better. */
  readonly score: number;
}

/** Reorders retrieved candidates (a cross-encoder or a hosted reranker). */
export interface Reranker {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Scores every candidate against the query, best first. */
  rerank(
    query: string,
    candidates: readonly RerankCandidate[],
    options?: CallOptions,
  ): Promise<RerankResult[]>;
}
