import type { CallOptions, DeleteTarget, Metadata, MetadataFilter } from './common.js';

/** One vector with its id and metadata. */
export interface VectorRecord {
  /** Unique id within the namespace; upserting the same id replaces the record. */
  readonly id: string;
  /** The embedding; every record of a namespace has the same dimension. */
  readonly vector: Float32Array | readonly number[];
  /** Metadata to filter on and return with matches. */
  readonly metadata: Metadata;
}

/** A vector search hit. */
export interface VectorMatch {
  /** The record id. */
  readonly id: string;
  /** Cosine similarity to the query in [-1, 1]; higher is closer. */
  readonly score: number;
  /** The record's metadata. */
  readonly metadata: Metadata;
}

/** Options of a vector query. */
export interface VectorQueryOptions extends CallOptions {
  /** How many matches at most. */
  readonly k: number;
  /** Only records whose metadata matches. */
  readonly filter?: MetadataFilter | undefined;
}

/**
 * Stores embeddings and finds the nearest ones. Every call is scoped to a namespace
 * (tenant); a record is never visible from another namespace.
 */
export interface VectorStore {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Inserts or replaces records by id. */
  upsert(namespace: string, records: readonly VectorRecord[], options?: CallOptions): Promise<void>;
  /** Nearest records to `vector` by cosine similarity, best first. */
  query(
    namespace: string,
    vector: Float32Array | readonly number[],
    options: VectorQueryOptions,
  ): Promise<VectorMatch[]>;
  /** Removes records by id or by metadata filter; returns how many were removed. */
  delete(namespace: string, target: DeleteTarget, options?: CallOptions): Promise<number>;
  /** Number of records in the namespace. */
  count(namespace: string, options?: CallOptions): Promise<number>;
}
