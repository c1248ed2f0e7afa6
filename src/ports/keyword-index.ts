import type { CallOptions, DeleteTarget, Metadata, MetadataFilter } from './common.js';

/** A text to index by its words. */
export interface KeywordRecord {
  /** Unique id within the namespace; adding the same id replaces the record. */
  readonly id: string;
  /** The text whose terms are indexed. */
  readonly text: string;
  /** Metadata to filter on and return with matches. */
  readonly metadata: Metadata;
  /**
   * Optional: the text's index terms, exactly as this index's own analysis of `text` gives
   * them (order aside: the engine's ingest workers list each term's occurrences together),
   * when the caller computed them already (the engine's ingest workers do, for the engine's
   * default in-memory index). An index that analyses text in its own way ignores them.
   */
  readonly terms?: readonly string[] | undefined;
}

/** A keyword search hit. */
export interface KeywordMatch {
  /** The record id. */
  readonly id: string;
  /** The index's own relevance score (BM25 for the in-memory index); higher is better. */
  readonly score: number;
  /**
   * Share of the query's weighted terms that the record contains, in [0, 1] (1: every
   * query term is present). Optional: when absent the engine normalises `score`.
   */
  readonly coverage?: number;
  /** The record's metadata. */
  readonly metadata: Metadata;
}

/** Options of a keyword search. */
export interface KeywordSearchOptions extends CallOptions {
  /** How many matches at most. */
  readonly k: number;
  /** Only records whose metadata matches. */
  readonly filter?: MetadataFilter | undefined;
}

/** Full-text index over chunks, scoped to a namespace like the vector store. */
export interface KeywordIndex {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Inserts or replaces records by id. */
  add(namespace: string, records: readonly KeywordRecord[], options?: CallOptions): Promise<void>;
  /** Records containing any of the query's terms, best first. */
  search(namespace: string, query: string, options: KeywordSearchOptions): Promise<KeywordMatch[]>;
  /** Removes records by id or by metadata filter; returns how many were removed. */
  delete(namespace: string, target: DeleteTarget, options?: CallOptions): Promise<number>;
  /** Number of records in the namespace. */
  count(namespace: string, options?: CallOptions): Promise<number>;
}
