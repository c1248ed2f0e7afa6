import type { CallOptions } from './common.js';

/** Turns texts into vectors. */
export interface EmbeddingProvider {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Stable id of the model and its settings; cache keys and snapshots use it. */
  readonly id: string;
  /** Length of every vector it returns. */
  readonly dimensions: number;
  /**
   * Typical cosine similarity of an unrelated pair and of a closely related pair of texts,
   * `[floor, ceiling]`. The engine maps cosine to relevance over this range (default
   * [0.1, 0.5]); state it when your model's scale differs, or guard mode will misjudge.
   */
  readonly similarityRange?: readonly [number, number];
  /** Most texts per `embed` call; the engine batches to it (default 64). */
  readonly maxBatchSize?: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options?: CallOptions): Promise<Float32Array[]>;
}
