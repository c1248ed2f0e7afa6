/**
 * usearch (https://github.com/unum-cloud/usearch) as the ANN index of the memory vector store:
 * a native HNSW with SIMD distances, built with usearch's multi-threaded batch add, whose graph
 * can be saved into the store's snapshot. usearch saves and loads through files only, so
 * `save()` and `load()` go through a temporary file (removed at once).
 * It implements the memory store's `AnnIndexFactory` / `AnnIndex` (`adapters/shared/ann-index.ts`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../errors/index.js';
import { importOptional, type LibrarySource } from '../../util/optional-import.js';
import type { AnnHit, AnnIndex, AnnIndexFactory } from '../shared/ann-index.js';

/** What cortexis uses of a usearch `Index` (declared here, not imported from the package). */
export interface UsearchIndex {
  /** Adds `keys.length` vectors, row after row, on `threads` threads. */
  add(keys: BigUint64Array, vectors: Float32Array, threads: number): void;
  /** The `k` nearest keys and their distances, best first. */
  search(
    vector: Float32Array,
    k: number,
    threads: number,
  ): { readonly keys: BigUint64Array; readonly distances: Float32Array };
  /** Removes a key. */
  remove(key: bigint): unknown;
  /** Live vectors. */
  size(): number;
  /** Vector length. */
  dimensions(): number;
  /** Links per node. */
  connectivity(): number;
  /** Writes the index to a file. */
  save(path: string): void;
  /** Replaces the index with one read from a file. */
  load(path: string): void;
}

/** The usearch module, reduced to its `Index` constructor. */
export interface UsearchLibrary {
  /** Creates an empty index. */
  readonly Index: new (config: {
    dimensions: number;
    metric: 'cos';
    quantization: UsearchQuantization;
    connectivity: number;
    expansion_add: number;
    expansion_search: number;
    multi: boolean;
  }) => UsearchIndex;
}

/** How usearch stores the graph's copy of the vectors: 4, 2 or 1 byte per component. */
export type UsearchQuantization = 'f32' | 'f16' | 'i8';

/** Settings of {@link usearchAnn}; defaults chosen with bench/scale.ts (docs/vector-index.md). */
export interface UsearchAnnSettings {
  /** The graph's copy of the vectors (default `i8`; the store re-scores hits from its own float32 copy). */
  readonly quantization?: UsearchQuantization;
  /** Links per node (default 16). */
  readonly connectivity?: number;
  /** Candidate list size while inserting (default 40). */
  readonly expansionAdd?: number;
  /** Candidate list size while searching (default 192). */
  readonly expansionSearch?: number;
  /**
   * Hits a search returns at least (default 32), all re-scored exactly by the store, which
   * keeps the best `k`; usearch explores max(`expansionSearch`, hits) candidates either way.
   */
  readonly candidates?: number;
  /** Threads of each batch add (default: `os.availableParallelism()`). */
  readonly threads?: number;
  /** Vectors per batch add; the store yields to the event loop between batches (default 256). */
  readonly batchSize?: number;
  /**
   * Whether the store's upserts wait for the graph to take in their vectors (default true), so
   * a graph built during ingestion is ready when it ends; false: upserts return at once and the
   * graph catches up afterwards (see `AnnIndexFactory.followWrites`).
   */
  readonly followWrites?: boolean;
  /** Folder of the temporary file of `save()`/`load()` (default `os.tmpdir()`). */
  readonly tempDir?: string;
  /** The usearch module or a function loading it (default: `import('usearch')` on first use). */
  readonly library?: LibrarySource<UsearchLibrary>;
}

/** One approximate neighbour: the memory store's {@link AnnHit}. */
export type UsearchHit = AnnHit;

/** A usearch index over unit vectors: an {@link AnnIndex} that can always `save`. */
export type UsearchAnnIndex = AnnIndex & { save(): Uint8Array };

/** Makes usearch indexes: an {@link AnnIndexFactory} that can always `load`. */
export interface UsearchAnn extends AnnIndexFactory {
  /** An empty index (`capacity` is unused: usearch grows by powers of two). */
  create(dimensions: number, capacity: number): Promise<UsearchAnnIndex>;
  /** An index from the bytes of `save()`; rejects when usearch cannot read them or they do not match. */
  load(bytes: Uint8Array, dimensions: number): Promise<UsearchAnnIndex>;
}

/** Default usearch parameters (see docs/vector-index.md for the measurements). */
export const DEFAULT_USEARCH_SETTINGS = {
  quantization: 'i8',
  connectivity: 16,
  expansionAdd: 40,
  expansionSearch: 192,
  candidates: 32,
  batchSize: 256,
} as const satisfies UsearchAnnSettings;

function config(path: string, message: string): ConfigError {
  return new ConfigError(`${path} ${message}`, [{ path, message }]);
}

function positive(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw config(path, `must be a positive integer (got ${String(value)})`);
  }
  return value;
}

/** Loads usearch: `library`, or the installed package (a `ConfigError` naming it when absent). */
async function loadUsearch(library: UsearchAnnSettings['library']): Promise<UsearchLibrary> {
  const loaded = await importOptional<UsearchLibrary>({
    name: 'usearch',
    load: () => import('usearch'),
    injected: library,
    neededBy: 'cortexis/usearch',
    purpose: 'for its vector index',
    exportName: 'Index',
    isClass: false,
    wrapInjected: true,
  });
  if (typeof (loaded as Partial<UsearchLibrary> | undefined)?.Index !== 'function') {
    throw config('library', 'is not the usearch module (it has no Index class)');
  }
  return loaded;
}

/**
 * usearch as the ANN index of the memory vector store: pass it as `ann`. Needs the optional
 * peer dependency `usearch` (prebuilt for Linux x64/arm64 and macOS), imported on first use.
 *
 * @example
 * ```ts
 * const vectorStore = createMemoryVectorStore({ ann: usearchAnn() });
 * ```
 */
export function usearchAnn(settings: UsearchAnnSettings = {}): UsearchAnn {
  const quantization = settings.quantization ?? DEFAULT_USEARCH_SETTINGS.quantization;
  if (!['f32', 'f16', 'i8'].includes(quantization)) {
    throw config('quantization', `must be 'f32', 'f16' or 'i8' (got ${String(quantization)})`);
  }
  const setting = (key: Exclude<keyof typeof DEFAULT_USEARCH_SETTINGS, 'quantization'>) =>
    positive(settings[key] ?? DEFAULT_USEARCH_SETTINGS[key], key);
  const connectivity = setting('connectivity');
  const expansionAdd = setting('expansionAdd');
  const expansionSearch = setting('expansionSearch');
  const candidates = setting('candidates');
  const threads = positive(settings.threads ?? availableParallelism(), 'threads');
  const batchSize = setting('batchSize');
  const followWrites = settings.followWrites ?? true;
  if (typeof followWrites !== 'boolean') {
    throw config('followWrites', `must be a boolean (got ${String(followWrites)})`);
  }
  const tempDir = settings.tempDir ?? tmpdir();
  if (typeof tempDir !== 'string' || tempDir.length === 0) {
    throw config('tempDir', 'must be a non-empty string');
  }
  let library: Promise<UsearchLibrary> | undefined;
  // Loaded once; a failed load is forgotten, so the next index tries again.
  const usearch = (): Promise<UsearchLibrary> =>
    (library ??= loadUsearch(settings.library).catch((error: unknown) => {
      library = undefined;
      throw error;
    }));
  const open = async (dimensions: number): Promise<UsearchIndex> =>
    new (await usearch()).Index({
      dimensions: positive(dimensions, 'dimensions'),
      metric: 'cos',
      quantization,
      connectivity,
      expansion_add: expansionAdd,
      expansion_search: expansionSearch,
      multi: false,
    });
  /** Runs `action` on a fresh temporary file path, removing the file afterwards. */
  const withTempFile = <T>(action: (path: string) => T): T => {
    const path = join(tempDir, `cortexis-usearch-${process.pid}-${randomUUID()}.usearch`);
    try {
      return action(path);
    } finally {
      rmSync(path, { force: true });
    }
  };

  const wrap = (native: UsearchIndex, dimensions: number): UsearchAnnIndex => {
    let index: UsearchIndex | null = native;
    const live = (): UsearchIndex => {
      if (index === null) throw new Error('usearch index used after dispose()');
      return index;
    };
    return {
      dimensions,
      get size() {
        return index?.size() ?? 0;
      },
      add(labels, vectors) {
        live().add(BigUint64Array.from(labels, BigInt), vectors, threads);
      },
      remove(label) {
        live().remove(BigInt(label));
      },
      search(vector, k) {
        const { keys, distances } = live().search(vector, Math.max(k, candidates), 1);
        const hits: UsearchHit[] = [];
        keys.forEach((key, at) => hits.push({ label: Number(key), score: 1 - distances[at]! }));
        return hits;
      },
      dispose() {
        index = null;
      },
      save() {
        const current = live();
        return withTempFile((path) => {
          current.save(path);
          const bytes = readFileSync(path);
          return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        });
      },
    };
  };

  return {
    kind: `usearch cos ${quantization} connectivity ${connectivity} expansionAdd ${expansionAdd} expansionSearch ${expansionSearch}`,
    batchSize,
    followWrites,
    async create(dimensions) {
      return wrap(await open(dimensions), dimensions);
    },
    async load(bytes, dimensions) {
      const native = await open(dimensions);
      withTempFile((path) => {
        writeFileSync(path, bytes);
        native.load(path);
      });
      if (native.dimensions() !== dimensions || native.connectivity() !== connectivity) {
        throw new Error(
          `usearch: the saved index has ${native.dimensions()} dimensions and connectivity ${native.connectivity()}; expected ${dimensions} and ${connectivity}`,
        );
      }
      return wrap(native, dimensions);
    },
  };
}
