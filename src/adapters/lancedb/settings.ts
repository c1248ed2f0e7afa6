/**
 * The settings of the LanceDB vector store: their type, their checks (every bad setting is a
 * `ConfigError` whose issue path names it), and the `@lancedb/lancedb` library they inject
 * or that is imported on first use.
 */
import type { Connection } from '@lancedb/lancedb';
import { ConfigError } from '../../errors/index.js';
import { importOptional } from '../../util/optional-import.js';

/** What the store uses of the `@lancedb/lancedb` module: `connect` and, for indexes, `Index`. */
export type LanceDbLibrary = Pick<typeof import('@lancedb/lancedb'), 'connect' | 'Index'>;

/** Settings of {@link createLanceDbVectorStore}. Give `uri` or `connection`. */
export interface LanceDbVectorStoreSettings {
  /** A directory (or any LanceDB URI, e.g. `s3://bucket/path`); the store connects and `close()` closes. */
  readonly uri?: string | undefined;
  /** An open LanceDB connection to use instead of `uri`; left open by `close()`. */
  readonly connection?: Connection | undefined;
  /** Table name (default `cortexis_vectors`): letters, digits, `_`, `-`, `.`, at most 128. */
  readonly table?: string | undefined;
  /** Length of every vector (1–65536); an existing table must have the same. */
  readonly dimensions: number;
  /**
   * How stale a read may be with `uri`: 0 (default) makes every read see the latest commits
   * of other processes and connections; larger values check at most that often. Set
   * `readConsistencyInterval` on your own `connection` instead.
   */
  readonly readConsistencyIntervalMs?: number | undefined;
  /**
   * Candidate list of an HNSW index search (default 400), raised to the number of rows a
   * query fetches; larger finds more of the true neighbours, slower. No effect without an
   * `hnsw` index.
   */
  readonly efSearch?: number | undefined;
  /** The `@lancedb/lancedb` module or a function loading it (default `import('@lancedb/lancedb')`). */
  readonly library?: LanceDbLibrary | (() => Promise<LanceDbLibrary>) | undefined;
  /** Adapter name reported in events and errors (default `lancedb`). */
  readonly name?: string | undefined;
}

/** LanceDB table names: letters, digits, `_`, `-`, `.` (not first, to keep `..` out). */
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const MAX_DIMENSIONS = 65_536;

/** A `ConfigError` for one setting: `path` and what is wrong with it. */
export function config(path: string, message: string): ConfigError {
  return new ConfigError(`${path} ${message}`, [{ path, message }]);
}

/** Throws a `ConfigError` naming the first bad setting. */
export function checkSettings(settings: LanceDbVectorStoreSettings): void {
  if (typeof settings !== 'object' || settings === null) {
    throw new ConfigError('createLanceDbVectorStore needs { dimensions } and a uri or connection');
  }
  const { dimensions, uri, connection, readConsistencyIntervalMs, efSearch, library, name } =
    settings;
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > MAX_DIMENSIONS
  ) {
    throw config(
      'dimensions',
      `must be an integer from 1 to ${MAX_DIMENSIONS} (got ${String(dimensions)})`,
    );
  }
  if ((uri === undefined) === (connection === undefined)) {
    throw config('uri', 'give exactly one of uri and connection');
  }
  if (uri !== undefined && (typeof uri !== 'string' || uri.length === 0)) {
    throw config('uri', 'must be a non-empty string');
  }
  if (
    connection !== undefined &&
    (typeof connection !== 'object' ||
      connection === null ||
      typeof connection.openTable !== 'function')
  ) {
    throw config('connection', 'must be a LanceDB Connection');
  }
  const table = settings.table ?? 'cortexis_vectors';
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw config(
      'table',
      'must be letters, digits, _, - and . (at most 128), starting with a letter, digit or _',
    );
  }
  if (readConsistencyIntervalMs !== undefined) {
    if (connection !== undefined) {
      throw config(
        'readConsistencyIntervalMs',
        'applies only with uri; set readConsistencyInterval on your connection',
      );
    }
    if (
      typeof readConsistencyIntervalMs !== 'number' ||
      !Number.isFinite(readConsistencyIntervalMs) ||
      readConsistencyIntervalMs < 0
    ) {
      throw config('readConsistencyIntervalMs', 'must be a finite number ≥ 0');
    }
  }
  if (
    efSearch !== undefined &&
    (typeof efSearch !== 'number' || !Number.isInteger(efSearch) || efSearch < 1)
  ) {
    throw config('efSearch', `must be a positive integer (got ${String(efSearch)})`);
  }
  if (
    library !== undefined &&
    typeof library !== 'function' &&
    (typeof library !== 'object' || library === null)
  ) {
    throw config('library', 'must be the @lancedb/lancedb module or a function loading it');
  }
  if (name !== undefined && (typeof name !== 'string' || name.length === 0)) {
    throw config('name', 'must be a non-empty string');
  }
}

/** The `@lancedb/lancedb` module: `settings.library`, or imported on first use. */
export async function loadLibrary(
  library: LanceDbVectorStoreSettings['library'],
): Promise<LanceDbLibrary> {
  const loaded = await importOptional<LanceDbLibrary>({
    name: '@lancedb/lancedb',
    load: () => import('@lancedb/lancedb'),
    injected: library,
    neededBy: 'createLanceDbVectorStore',
    install: 'npm i @lancedb/lancedb@0.37 apache-arrow@18.1',
    exportName: 'connect',
    wrapInjected: true,
  });
  if (typeof (loaded as Partial<LanceDbLibrary> | undefined)?.connect !== 'function') {
    throw config('library', 'is not the @lancedb/lancedb module (it has no connect function)');
  }
  return loaded;
}
