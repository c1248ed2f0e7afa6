/**
 * The approximate-nearest-neighbour (ANN) index of the memory vector store, as an interface
 * ({@link AnnIndex}, made by an {@link AnnIndexFactory}) so another index can be plugged in
 * (`cortexis/usearch`), and its default: a thin wrapper around hnswlib-wasm's
 * `HierarchicalNSW`, a graph over unit vectors (inner-product space, so `1 − distance` is the
 * cosine), addressed by integer labels. An index holds no ids, metadata or persistence of its
 * own — the memory vector store keeps the vectors and rebuilds the graph from them (or, when
 * the index can save itself, restores it from a snapshot).
 *
 * hnswlib-wasm is a browser build. In Node it loads only while `globalThis.importScripts` is
 * defined, and it tries to mount IndexedDB (absent in Node) and logs the failure; the index
 * lives in wasm memory and never touches its file system here, so {@link loadHnswLibrary}
 * defines the global for the duration of the load and drops exactly those messages (see
 * {@link isHnswlibNoise}); anything else logged meanwhile, by the host or by hnswlib, is printed.
 */

import type { AnnHit, AnnIndex, AnnIndexFactory } from '../shared/ann-index.js';

export type { AnnHit, AnnIndex, AnnIndexFactory };

/**
 * What the index uses of hnswlib-wasm's `HierarchicalNSW` graph (declared here rather than
 * imported, so that our published types do not depend on the package's own declarations).
 */
export interface HnswGraph {
  /** Allocates room for `maxElements` points. */
  initIndex(maxElements: number, m: number, efConstruction: number, randomSeed: number): void;
  /** Grows (or shrinks) the room for points. */
  resizeIndex(newMaxElements: number): void;
  /** Adds a point under `label`, reusing a deleted point's slot when `replaceDeleted`. */
  addPoint(point: Float32Array | number[], label: number, replaceDeleted: boolean): void;
  /** Marks a label deleted. */
  markDelete(label: number): void;
  /** Sets the candidate list size of searches. */
  setEfSearch(ef: number): void;
  /** The `numNeighbors` nearest labels and their distances, best first. */
  searchKnn(
    queryPoint: Float32Array | number[],
    numNeighbors: number,
    filter: ((label: number) => boolean) | undefined,
  ): { neighbors: number[]; distances: number[] };
}

/**
 * The loaded hnswlib-wasm module (what its `loadHnswlib()` resolves to), reduced to what the
 * index uses: the `HierarchicalNSW` constructor.
 */
export interface HnswLibrary {
  /** Creates an empty graph: metric space, vector length, auto-save file name (unused: `''`). */
  readonly HierarchicalNSW: new (
    spaceName: 'l2' | 'ip' | 'cosine',
    numDimensions: number,
    autoSaveFilename: string,
  ) => HnswGraph;
}

/** HNSW build and search parameters. */
export interface HnswParameters {
  /** Links per node and layer (default 16); more: better recall, more memory, slower build. */
  readonly m?: number;
  /** Candidate list size while inserting (default 100); more: better graph, slower build. */
  readonly efConstruction?: number;
  /** Candidate list size while searching (default 128, raised to k when k is larger). */
  readonly efSearch?: number;
  /** Seed of the level generator, for reproducible graphs (default 100). */
  readonly seed?: number;
}

/** One approximate neighbour; the score is 1 − inner-product distance, in float32 by hnswlib. */
export type HnswHit = AnnHit;

/** An HNSW graph over unit vectors of one dimension, addressed by integer labels. */
export interface HnswIndex {
  /** Vector length. */
  readonly dimensions: number;
  /** Live (not deleted) points. */
  readonly size: number;
  /** Adds a unit vector under a new label (reusing a deleted point's memory when there is one). */
  add(label: number, vector: Float32Array): void;
  /** Marks a label deleted: never returned again; its memory is reused by the next add. */
  remove(label: number): void;
  /** Up to `k` approximate nearest labels, best first; `ef` defaults to the efSearch setting. */
  search(vector: Float32Array, k: number, ef?: number): HnswHit[];
  /** Frees the wasm memory; the index is unusable afterwards. */
  dispose(): void;
}

/** Default HNSW parameters (chosen from `npm run bench:vector`; see docs/vector-index.md). */
export const DEFAULT_HNSW_PARAMETERS: Required<HnswParameters> = {
  m: 16,
  efConstruction: 100,
  efSearch: 64,
  seed: 100,
};

let loading: Promise<HnswLibrary> | undefined;

/** Turns hnswlib's wasm exceptions (`{ message: [type, text] }`) into `Error`s. */
export function hnswError(error: unknown): Error {
  if (error instanceof Error) return error;
  const message = (error as { message?: unknown } | null)?.message;
  const text = Array.isArray(message) ? message.map(String).join(': ') : String(message ?? error);
  return new Error(`hnswlib: ${text}`, { cause: error });
}

/** The messages hnswlib-wasm prints while it fails to mount IndexedDB (absent in Node). */
const HNSWLIB_NOISE = /^(EmscriptenFileSystemManager: |Aborted\(Assertion failed: IDBFS|b\. jsFS )/;

/** Whether a console call's arguments are hnswlib-wasm's IndexedDB noise (and nothing else). */
export function isHnswlibNoise(args: readonly unknown[]): boolean {
  return typeof args[0] === 'string' && HNSWLIB_NOISE.test(args[0]);
}

/**
 * Loads hnswlib-wasm once per process (cached). Defines `globalThis.importScripts` while it
 * loads and filters hnswlib's IndexedDB noise out of `console.log/warn/error` (see the module
 * comment): every other message, the host's included, still reaches the console. Afterwards
 * `importScripts` is restored, and so is each console method the host has not replaced since.
 */
export function loadHnswLibrary(): Promise<HnswLibrary> {
  loading ??= (async () => {
    const scope = globalThis as { importScripts?: unknown };
    const hadImportScripts = 'importScripts' in scope;
    const previousImportScripts = scope.importScripts;
    const methods = ['log', 'warn', 'error'] as const;
    const saved = methods.map((method) => console[method]);
    const filters = saved.map((original) => (...args: unknown[]): void => {
      if (!isHnswlibNoise(args)) original.apply(console, args);
    });
    if (!hadImportScripts) scope.importScripts = () => undefined;
    methods.forEach((method, index) => (console[method] = filters[index]!));
    try {
      // The package has no `main`/`exports` (only a bundler `module` field): Node needs the path.
      // A specifier bundlers do not follow: no bundle inlines the 700 KB library; a browser
      // bundle that wants the graph injects it (`loadHnswlib`), else search stays exact.
      const specifier = 'hnswlib-wasm/dist/hnswlib.js';
      const { loadHnswlib } = (await import(
        /* webpackIgnore: true */ /* @vite-ignore */ specifier
      )) as typeof import('hnswlib-wasm/dist/hnswlib.js');
      return await loadHnswlib();
    } finally {
      methods.forEach((method, index) => {
        if (console[method] === filters[index]) console[method] = saved[index]!;
      });
      if (hadImportScripts) scope.importScripts = previousImportScripts;
      else delete scope.importScripts;
    }
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer (got ${String(value)})`);
  }
  return value;
}

/**
 * Creates an empty HNSW index for unit vectors of `dimensions` components, with room for
 * `capacity` points (doubled when full).
 */
export function createHnswIndex(
  library: HnswLibrary,
  dimensions: number,
  parameters: HnswParameters = {},
  capacity = 1024,
): HnswIndex {
  const { m, efConstruction, efSearch, seed } = { ...DEFAULT_HNSW_PARAMETERS, ...parameters };
  positiveInteger(m, 'm');
  positiveInteger(efConstruction, 'efConstruction');
  positiveInteger(efSearch, 'efSearch');
  let maxElements = Math.max(16, Math.floor(capacity));
  const graph = new library.HierarchicalNSW('ip', positiveInteger(dimensions, 'dimensions'), '');
  graph.initIndex(maxElements, m, efConstruction, seed);
  let total = 0; // points in the graph, deleted ones included
  let deleted = 0;
  let currentEf = -1;

  const call = <T>(action: () => T): T => {
    try {
      return action();
    } catch (error) {
      throw hnswError(error);
    }
  };

  return {
    dimensions,
    get size() {
      return total - deleted;
    },
    add(label, vector) {
      // The binding checks the element count (deleted ones included) before reusing a slot.
      if (total >= maxElements) {
        maxElements *= 2;
        call(() => graph.resizeIndex(maxElements));
      }
      call(() => graph.addPoint(vector, label, true));
      if (deleted > 0) deleted--;
      else total++;
    },
    remove(label) {
      call(() => graph.markDelete(label));
      deleted++;
    },
    search(vector, k, ef = efSearch) {
      const live = total - deleted;
      const wanted = Math.min(k, live, maxElements);
      if (wanted < 1) return [];
      const breadth = Math.max(ef, wanted);
      if (breadth !== currentEf) {
        call(() => graph.setEfSearch(breadth));
        currentEf = breadth;
      }
      const result = call(() => graph.searchKnn(vector, wanted, undefined));
      return result.neighbors.map((label, index) => ({
        label,
        score: 1 - result.distances[index]!,
      }));
    },
    dispose() {
      (graph as unknown as { delete?: () => void }).delete?.();
    },
  };
}

/** Vectors per `add` call of the hnswlib index: adds are one at a time, inside time slices. */
const HNSWLIB_BATCH = 8;

/**
 * The default ANN index of the memory vector store: hnswlib-wasm (single-threaded, loaded on
 * first use by `load`), with the given parameters. It cannot save itself, so snapshots of a
 * store using it hold no graph.
 */
export function hnswlibAnn(
  parameters: HnswParameters = {},
  load: () => Promise<HnswLibrary> = loadHnswLibrary,
): AnnIndexFactory {
  const { m, efConstruction, efSearch, seed } = { ...DEFAULT_HNSW_PARAMETERS, ...parameters };
  return {
    kind: `hnswlib-wasm m ${m} efConstruction ${efConstruction} efSearch ${efSearch} seed ${seed}`,
    batchSize: HNSWLIB_BATCH,
    async create(dimensions, capacity) {
      const index = createHnswIndex(await load(), dimensions, parameters, capacity);
      return {
        dimensions,
        get size() {
          return index.size;
        },
        add(labels, vectors) {
          labels.forEach((label, row) =>
            index.add(label, vectors.subarray(row * dimensions, (row + 1) * dimensions)),
          );
        },
        remove: (label) => index.remove(label),
        search: (vector, k) => index.search(vector, k),
        dispose: () => index.dispose(),
      };
    },
  };
}
