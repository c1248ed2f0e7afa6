/**
 * The approximate-nearest-neighbour index behind the memory vector store's graph search (its
 * `ann` setting), shared by the index adapters that implement it: hnswlib-wasm
 * (`adapters/memory/hnsw-index.ts`, the default) and usearch (`adapters/usearch`).
 */

/** One approximate neighbour. */
export interface AnnHit {
  /** The label it was added with. */
  readonly label: number;
  /** Cosine similarity as the index computed it (the store re-scores hits exactly). */
  readonly score: number;
}

/**
 * An approximate-nearest-neighbour index over unit vectors of one dimension, addressed by
 * integer labels (each label is added at most once; a replaced vector gets a new label).
 */
export interface AnnIndex {
  /** Vector length. */
  readonly dimensions: number;
  /** Live (not removed) points. */
  readonly size: number;
  /**
   * Adds unit vectors: `vectors` holds `labels.length` rows of `dimensions` components, one
   * after the other. May block for as long as the batch takes; the store sizes batches with
   * {@link AnnIndexFactory.batchSize} and yields to the event loop between them.
   */
  add(labels: readonly number[], vectors: Float32Array): void;
  /** Removes a label: never returned again. */
  remove(label: number): void;
  /** Up to `k` approximate nearest labels, best first. */
  search(vector: Float32Array, k: number): readonly AnnHit[];
  /** Frees the index's memory; the index is unusable afterwards. */
  dispose(): void;
  /**
   * The index as bytes, which {@link AnnIndexFactory.load} reads back; absent when the index
   * cannot export itself (hnswlib-wasm), and then snapshots hold the vectors only.
   */
  save?(): Uint8Array;
}

/** Makes the ANN indexes of a memory vector store (`settings.ann`). */
export interface AnnIndexFactory {
  /**
   * The index and its build parameters, e.g. `usearch cos i8 connectivity 16 …`: a snapshot's
   * saved index is loaded only by a factory of the same kind, else rebuilt from the vectors.
   */
  readonly kind: string;
  /** Vectors per {@link AnnIndex.add} call. */
  readonly batchSize: number;
  /**
   * When true, the store's `upsert` resolves only once the graph being built has taken in
   * the vectors written (added in batches, yielding to the event loop between them), so a
   * graph built while documents are ingested is ready when ingestion ends. Worth it when adds
   * are cheap (usearch: native and multi-threaded). Absent or false: `upsert` returns at once
   * and the graph catches up in the background whenever the event loop has a turn
   * (hnswlib-wasm: single-threaded, slower adds that would lengthen ingestion as much).
   */
  readonly followWrites?: boolean;
  /** An empty index for unit vectors of `dimensions` components, with room for about `capacity`. */
  create(dimensions: number, capacity: number): Promise<AnnIndex>;
  /**
   * An index from bytes of {@link AnnIndex.save} by a factory of the same `kind`; rejects when
   * they cannot be loaded (the store then rebuilds the index from its vectors).
   */
  load?(bytes: Uint8Array, dimensions: number): Promise<AnnIndex>;
}
