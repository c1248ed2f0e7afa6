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
  /** Most texts per `embed` call; the engine batches to it (default 64). */
  readonly maxBatchSize?: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options?: CallOptions): Promise<Float32Array[]>;
}
