/**
 * Cosine-similarity vector store in memory. Each namespace keeps its vectors L2-normalised in
 * one contiguous, growable `Float32Array` (the source of truth), so an exact query is a tight
 * loop of dot products; deletes swap the last row into the freed slot. Above a size threshold
 * (or when configured) an HNSW graph (hnswlib-wasm, or the `ann` index given, e.g. usearch) is
 * built from those vectors in background slices; queries stay exact until it has caught up,
 * then search the graph, re-score the hits exactly and scan exactly the few vectors added
 * since. Snapshots save the vectors, and the graph too when the index can save itself.
 *
 * This file holds the store's public types and its factory; the parts live beside it:
 * `vector-settings.ts` (settings and their validation), `vector-space.ts` (a namespace's
 * storage), `vector-validation.ts` (input checks), `vector-exact-search.ts` (the exact scan),
 * `vector-graph.ts` (graph build and search), `hnsw-index.ts` (the ANN index interface and
 * its hnswlib-wasm default) and `vector-snapshot.ts` (snapshot bytes).
 */
import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget } from '../../ports/common.js';
import type { VectorQueryOptions, VectorRecord, VectorStore } from '../../ports/vector-store.js';
import { validateFilter } from '../../query/filter.js';
import { invalid, requirePositiveInteger, requireString } from '../shared/validate.js';
import { search } from './vector-exact-search.js';
import { createVectorGraphs } from './vector-graph.js';
import { resolveSettings, type MemoryVectorStoreSettings } from './vector-settings.js';
import { snapshotSpaces, spacesFromSnapshot } from './vector-snapshot.js';
import { createSpace, remove, write, type Space } from './vector-space.js';
import { isVectorLike, normalizeVector, prepare, resolveTarget } from './vector-validation.js';

export { hnswlibAnn, type AnnHit, type AnnIndex, type AnnIndexFactory } from './hnsw-index.js';
export {
  DEFAULT_HNSW_THRESHOLD,
  type MemoryVectorStoreSettings,
  type VectorIndexMode,
} from './vector-settings.js';

/** How a namespace is being searched right now. */
export interface VectorIndexStats {
  /** Live vectors. */
  readonly count: number;
  /** `exact`: no graph; `building`: a graph is being built, queries are exact; `hnsw`: graph in use. */
  readonly state: 'exact' | 'building' | 'hnsw';
  /** Live vectors in the graph. */
  readonly indexed: number;
  /** Vectors added or replaced since the graph last caught up (scanned exactly). */
  readonly pending: number;
  /** Why building failed, when it did (the namespace then stays exact). */
  readonly error?: unknown;
}

/** The in-memory `VectorStore` plus snapshots and index introspection. */
export interface MemoryVectorStore extends VectorStore {
  /**
   * Every namespace's vectors and metadata as versioned, checksummed bytes, with each graph
   * whose index can save itself (`cortexis/usearch`; not the default hnswlib-wasm).
   */
  snapshot(): Uint8Array;
  /**
   * Replaces the whole content with a snapshot's; graphs are loaded from the snapshot when it
   * holds them for the same index kind, else rebuilt, in the background.
   * Throws `ValidationError` (path `snapshot`) on corrupt or foreign bytes, leaving the store unchanged.
   */
  restore(bytes: Uint8Array): void;
  /** Resolves once every graph being built has caught up with the vectors. */
  whenIndexed(): Promise<void>;
  /** The search state of a namespace. */
  indexStats(namespace: string): VectorIndexStats;
}

/**
 * A cosine vector store held in memory: mandatory namespaces, metadata filters, typed errors
 * for bad vectors, exact search below `hnswThreshold` vectors per namespace and HNSW above it
 * (see {@link MemoryVectorStoreSettings.index}), snapshots to bytes.
 */
export function createMemoryVectorStore(
  settings: MemoryVectorStoreSettings = {},
): MemoryVectorStore {
  const initialCapacity = Math.max(1, Math.floor(settings.initialCapacity ?? 1024));
  const config = resolveSettings(settings);
  let spaces = new Map<string, Space>();

  const { dropGraph, schedule, followWrites, usableGraph, graphSearch } =
    createVectorGraphs(config);

  function replaceAll(next: Map<string, Space>): void {
    for (const space of spaces.values()) dropGraph(space);
    spaces = next;
    for (const [namespace, space] of spaces) schedule(namespace, space);
  }

  if (settings.snapshot !== undefined) {
    replaceAll(spacesFromSnapshot(settings.snapshot, initialCapacity));
  }

  return {
    name: 'memory',
    specificationVersion: 'v1',

    async upsert(namespace: string, records: readonly VectorRecord[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      if (!Array.isArray(records)) throw invalid('records', 'must be an array');
      const existing = spaces.get(namespace);
      const prepared = prepare(records, existing && existing.size > 0 ? existing.dimensions : null);
      const first = prepared[0];
      if (first === undefined) return;
      let space = existing;
      if (space === undefined || space.size === 0) {
        if (space) dropGraph(space);
        space = createSpace(first.vector.length, Math.max(initialCapacity, prepared.length));
        spaces.set(namespace, space);
      }
      for (const record of prepared) write(space, record);
      schedule(namespace, space);
      await followWrites(space);
    },

    async query(
      namespace: string,
      vector: Float32Array | readonly number[],
      options: VectorQueryOptions,
    ) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      requirePositiveInteger(options?.k, 'k');
      if (options.filter !== undefined) validateFilter(options.filter);
      if (!isVectorLike(vector) || vector.length === 0) {
        throw invalid('vector', 'must be a non-empty number array');
      }
      const space = spaces.get(namespace);
      if (space !== undefined && space.size > 0 && vector.length !== space.dimensions) {
        throw invalid(
          'vector',
          `has ${vector.length} dimensions; namespace '${namespace}' has ${space.dimensions}`,
        );
      }
      const unit = normalizeVector(vector, 'vector');
      if (space === undefined || space.size === 0) return [];
      const graph = usableGraph(space);
      return (graph && graphSearch(space, graph, unit, options)) ?? search(space, unit, options);
    },

    async delete(namespace: string, target: DeleteTarget, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      const ids = resolveTarget(spaces.get(namespace), target);
      const space = spaces.get(namespace);
      if (space === undefined) return 0;
      let removed = 0;
      for (const id of ids) if (remove(space, id)) removed++;
      // Shrunk well below the threshold: the graph is not worth its memory any more.
      if (config.mode === 'auto' && space.size < config.threshold / 2) dropGraph(space);
      return removed;
    },

    async count(namespace: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      return spaces.get(namespace)?.size ?? 0;
    },

    snapshot() {
      return snapshotSpaces(spaces, config.ann.kind);
    },

    restore(bytes: Uint8Array) {
      replaceAll(spacesFromSnapshot(bytes, initialCapacity));
    },

    async whenIndexed() {
      for (;;) {
        const running = [...spaces.values()]
          .map((space) => space.ann?.building)
          .filter((building): building is Promise<void> => building != null);
        if (running.length === 0) return;
        await Promise.all(running);
      }
    },

    indexStats(namespace: string): VectorIndexStats {
      requireString(namespace, 'namespace');
      const space = spaces.get(namespace);
      const ann = space?.ann;
      const count = space?.size ?? 0;
      if (!space || !ann) return { count, state: 'exact', indexed: 0, pending: 0 };
      const stats = {
        count,
        state: usableGraph(space)
          ? ('hnsw' as const)
          : ann.error === undefined
            ? ('building' as const)
            : ('exact' as const),
        indexed: ann.index?.size ?? 0,
        pending: Math.max(0, space.nextLabel - ann.cursor),
      };
      return ann.error === undefined ? stats : { ...stats, error: ann.error };
    },
  };
}
