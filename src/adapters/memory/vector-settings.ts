/**
 * The settings of the memory vector store and their validation: the index mode (exact, HNSW
 * or by size), the HNSW threshold, the ANN index (hnswlib-wasm with its parameters and loader,
 * or another {@link AnnIndexFactory}), filter over-fetch and build slices, resolved once into
 * the values the store and its graphs use.
 */
import { invalid } from '../shared/validate.js';
import {
  hnswlibAnn,
  type AnnIndexFactory,
  type HnswLibrary,
  type HnswParameters,
} from './hnsw-index.js';

/** How a namespace is searched: always exactly, always through HNSW, or by size. */
export type VectorIndexMode = 'exact' | 'hnsw' | 'auto';

/**
 * Vectors per namespace from which `index: 'auto'` builds an HNSW graph. Measured with
 * `npm run bench:vector` (docs/vector-index.md): exact search of dense 384-dimension vectors
 * costs about 1 ms per 15–20k vectors here, and a graph costs a second copy of the vectors
 * plus ~1.5 ms of build time per vector.
 */
export const DEFAULT_HNSW_THRESHOLD = 20_000;

/** Settings of the in-memory vector store. */
export interface MemoryVectorStoreSettings {
  /** Rows allocated when a namespace receives its first vector (default 1024); grows ×2. */
  readonly initialCapacity?: number;
  /**
   * `exact`: always scan every vector. `hnsw`: build a graph for every namespace. `auto`
   * (default): build one once a namespace holds `hnswThreshold` vectors.
   */
  readonly index?: VectorIndexMode;
  /** Namespace size from which `auto` builds a graph (default {@link DEFAULT_HNSW_THRESHOLD}). */
  readonly hnswThreshold?: number;
  /**
   * The ANN index (default: hnswlib-wasm, {@link hnswlibAnn}); e.g. `usearchAnn()` from
   * `cortexis/usearch`, a native multi-threaded HNSW whose graph also goes into snapshots.
   */
  readonly ann?: AnnIndexFactory;
  /** hnswlib-wasm parameters m, efConstruction, efSearch, seed (defaults: 16, 100, 64, 100); not with `ann`. */
  readonly hnsw?: HnswParameters;
  /**
   * With a filter, the graph is asked for `k × filterOverfetch` (at least 100) candidates; when
   * fewer than `k` of them match, the query falls back to an exact scan (default 10).
   */
  readonly filterOverfetch?: number;
  /** Longest synchronous build slice in ms before yielding to the event loop (default 8). */
  readonly buildSliceMs?: number;
  /** Loads hnswlib-wasm (default: the bundled package, loaded once); inject another build or a mock; not with `ann`. */
  readonly loadHnswlib?: () => Promise<HnswLibrary>;
  /** Called when building a graph fails; the namespace then stays exact. */
  readonly onIndexError?: (error: unknown, namespace: string) => void;
  /** Bytes from `snapshot()` to start from (throws `ValidationError` when invalid). */
  readonly snapshot?: Uint8Array;
}

/** The settings with their defaults applied, as the store and its graphs use them. */
export interface ResolvedSettings {
  readonly mode: VectorIndexMode;
  readonly threshold: number;
  readonly ann: AnnIndexFactory;
  readonly overfetch: number;
  readonly sliceMs: number;
  readonly onIndexError: ((error: unknown, namespace: string) => void) | undefined;
}

/** Validates the settings and applies their defaults. */
export function resolveSettings(settings: MemoryVectorStoreSettings): ResolvedSettings {
  const mode = settings.index ?? 'auto';
  if (mode !== 'exact' && mode !== 'hnsw' && mode !== 'auto') {
    throw invalid('settings.index', "must be 'exact', 'hnsw' or 'auto'");
  }
  const threshold = settings.hnswThreshold ?? DEFAULT_HNSW_THRESHOLD;
  if (!Number.isInteger(threshold) || threshold < 1) {
    throw invalid('settings.hnswThreshold', 'must be a positive integer');
  }
  const overfetch = settings.filterOverfetch ?? 10;
  if (!(overfetch >= 1)) throw invalid('settings.filterOverfetch', 'must be ≥ 1');
  const sliceMs = settings.buildSliceMs ?? 8;
  if (!(sliceMs > 0)) throw invalid('settings.buildSliceMs', 'must be > 0');
  if (settings.ann !== undefined) checkAnn(settings);
  for (const key of ['m', 'efConstruction', 'efSearch'] as const) {
    const value = settings.hnsw?.[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw invalid(`settings.hnsw.${key}`, 'must be a positive integer');
    }
  }
  return {
    mode,
    threshold,
    ann: settings.ann ?? hnswlibAnn(settings.hnsw, settings.loadHnswlib),
    overfetch,
    sliceMs,
    onIndexError: settings.onIndexError,
  };
}

/** Checks an `ann` factory's shape, and that no hnswlib-only setting comes with it. */
function checkAnn(settings: MemoryVectorStoreSettings): void {
  const ann = settings.ann as Partial<AnnIndexFactory> | null;
  if (typeof ann !== 'object' || ann === null || typeof ann.create !== 'function') {
    throw invalid('settings.ann', 'must be an ANN index factory with a create() function');
  }
  if (typeof ann.kind !== 'string' || ann.kind.length === 0) {
    throw invalid('settings.ann.kind', 'must be a non-empty string');
  }
  if (!Number.isInteger(ann.batchSize) || ann.batchSize! < 1) {
    throw invalid('settings.ann.batchSize', 'must be a positive integer');
  }
  for (const key of ['hnsw', 'loadHnswlib'] as const) {
    if (settings[key] !== undefined) {
      throw invalid(`settings.${key}`, 'applies to the default hnswlib index only, not with `ann`');
    }
  }
}
