/**
 * The settings of the pgvector store: their types, their checks (every bad setting is a
 * `ConfigError` whose issue path names it), and the `pg` module a `connectionString` needs,
 * injected or imported on first use.
 */
import { ConfigError } from '../../errors/index.js';
import { importOptional } from '../../util/optional-import.js';
import type { PgLibrary, PgPool } from './database.js';

/**
 * Anything that runs a parameterised query and returns its rows: a `pg.Pool`, a `pg`
 * client, a PGlite instance. Parameters are sent as text and cast in SQL.
 */
export interface SqlQueryable {
  /** Runs `text` with `$1…` parameters. */
  query(text: string, values?: unknown[]): Promise<{ readonly rows: readonly unknown[] }>;
  /** `pg.Pool`: checks a client out (used for transactions). */
  connect?: PgPool['connect'] | undefined;
  /** PGlite: runs `work` in a transaction (used when there is no `connect`). */
  transaction?: (<T>(work: (tx: SqlQueryable) => Promise<T>) => Promise<T>) | undefined;
}

/** How pgvector ≥ 0.8 continues an HNSW scan when filters drop candidates. */
export type PgVectorIterativeScan = 'strict_order' | 'relaxed_order' | 'off';

/** HNSW parameters (pgvector defaults: m 16, efConstruction 64, efSearch 40). */
export interface PgVectorHnswSettings {
  /** Links per node when the index is created (2–100, default 16). */
  readonly m?: number | undefined;
  /** Candidate list size while building the index (4–1000, default 64). */
  readonly efConstruction?: number | undefined;
  /** Candidate list size per query, raised to `k` when smaller (1–1000, default 40). */
  readonly efSearch?: number | undefined;
  /**
   * `strict_order` (default): scan on until `k` rows pass the namespace and filter, keeping
   * exact distance order; `relaxed_order`: faster, order may be slightly off; `off`: one
   * pass of `efSearch` candidates (a filtered query may return fewer than `k`).
   */
  readonly iterativeScan?: PgVectorIterativeScan | undefined;
}

/** Settings of {@link createPgVectorStore}. Give one of `queryable`, `pool`, `connectionString`. */
export interface PgVectorStoreSettings {
  /** Any `{ query(sql, params) → { rows } }`: a `pg.Pool`, a client, PGlite; left open by `close()`. */
  readonly queryable?: SqlQueryable | undefined;
  /** A `pg.Pool` (same as `queryable`); left open by `close()`. */
  readonly pool?: PgPool | undefined;
  /** A `postgres://` URL; the store opens (and `close()` ends) its own `pg` pool. */
  readonly connectionString?: string | undefined;
  /** The `pg` module, or a function loading it, for `connectionString` (default `import('pg')`). */
  readonly library?: PgLibrary | (() => Promise<PgLibrary>) | undefined;
  /** Most pooled connections when the store opens the pool (default 10). */
  readonly maxConnections?: number | undefined;
  /** Schema holding the table, created if missing (default `cortexis`); letters, digits, `_`. */
  readonly schema?: string | undefined;
  /** Table name (default `vectors`); letters, digits, `_`, at most 48 characters. */
  readonly table?: string | undefined;
  /** Length of every vector (1–2000, the HNSW limit of pgvector's `vector` type). */
  readonly dimensions: number;
  /**
   * Create the extension, schema, table and index when missing (default true). False only
   * checks that the table exists with this dimension.
   */
  readonly migrate?: boolean | undefined;
  /** HNSW index and search parameters. */
  readonly hnsw?: PgVectorHnswSettings | undefined;
  /** Adapter name reported in events and errors (default `pgvector`). */
  readonly name?: string | undefined;
}
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;
/** pgvector builds HNSW indexes on `vector` columns of at most 2000 dimensions. */
const MAX_HNSW_DIMENSIONS = 2000;

/** A `ConfigError` for one setting: `path` and what is wrong with it. */
export function config(path: string, message: string): ConfigError {
  return new ConfigError(`${path} ${message}`, [{ path, message }]);
}

function checkInteger(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw config(path, `must be an integer from ${min} to ${max} (got ${String(value)})`);
  }
  return value;
}
/** The `pg` module for `connectionString`: `settings.library`, or imported on first use. */
export function loadLibrary(library: PgVectorStoreSettings['library']): Promise<PgLibrary> {
  return importOptional<PgLibrary>({
    name: 'pg',
    load: () => import('pg'),
    injected: library,
    neededBy: 'createPgVectorStore with connectionString',
  });
}
/** Throws a `ConfigError` naming the first bad setting. */
export function checkSettings(settings: PgVectorStoreSettings): void {
  if (typeof settings !== 'object' || settings === null) {
    throw new ConfigError('createPgVectorStore needs { dimensions } and a database');
  }
  checkInteger(settings.dimensions, 'dimensions', 1, MAX_HNSW_DIMENSIONS);
  const schema = settings.schema ?? 'cortexis';
  if (typeof schema !== 'string' || !IDENTIFIER.test(schema)) {
    throw config('schema', 'must be letters, digits and _ (at most 63), not starting with a digit');
  }
  const table = settings.table ?? 'vectors';
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw config('table', 'must be letters, digits and _ (at most 48), not starting with a digit');
  }
  const { hnsw = {} } = settings;
  if (hnsw.m !== undefined) checkInteger(hnsw.m, 'hnsw.m', 2, 100);
  if (hnsw.efConstruction !== undefined) {
    checkInteger(hnsw.efConstruction, 'hnsw.efConstruction', 4, 1000);
  }
  if (hnsw.efSearch !== undefined) checkInteger(hnsw.efSearch, 'hnsw.efSearch', 1, 1000);
  const scans: readonly unknown[] = ['strict_order', 'relaxed_order', 'off'];
  if (hnsw.iterativeScan !== undefined && !scans.includes(hnsw.iterativeScan)) {
    throw config('hnsw.iterativeScan', "must be 'strict_order', 'relaxed_order' or 'off'");
  }
  if (settings.maxConnections !== undefined) {
    checkInteger(settings.maxConnections, 'maxConnections', 1, 10_000);
  }
  const sources = [settings.queryable, settings.pool, settings.connectionString].filter(
    (source) => source !== undefined,
  );
  if (sources.length !== 1) {
    throw config('queryable', 'give exactly one of queryable, pool or connectionString');
  }
  const { connectionString } = settings;
  if (
    connectionString !== undefined &&
    (typeof connectionString !== 'string' || !connectionString)
  ) {
    throw config('connectionString', 'must be a non-empty string');
  }
}
