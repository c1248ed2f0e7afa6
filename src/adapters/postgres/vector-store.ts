/**
 * A `VectorStore` on PostgreSQL with pgvector: one table `(namespace, id, embedding
 * vector(dimensions), metadata jsonb)` keyed by `(namespace, id)`, an HNSW index with
 * `vector_cosine_ops`, cosine similarity `1 − (embedding <=> query)`. Metadata filters are
 * compiled to SQL on the jsonb column with the same meaning as the in-memory
 * `matchesFilter`, so the database filters while it walks the index (pgvector ≥ 0.8
 * iterative scans keep a filtered query from coming back with fewer than `k` matches).
 * Works on anything with `query(sql, params) → { rows }`: a `pg.Pool`, a pooled client, or
 * PGlite with its pgvector extension.
 */
import { ConfigError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget, Metadata } from '../../ports/common.js';
import type {
  VectorMatch,
  VectorQueryOptions,
  VectorRecord,
  VectorStore,
} from '../../ports/vector-store.js';
import { validateFilter } from '../../query/filter.js';
import {
  flatMetadata,
  invalid,
  requirePositiveInteger,
  requireString,
  toUnitVector,
} from '../shared/validate.js';
import { transaction, type PgLibrary, type PgPool } from './database.js';
import { binder, filterToSql } from './filter-sql.js';

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

/** The pgvector store plus its table and a `close()`. */
export interface PgVectorStore extends VectorStore {
  /** The vector length of the table. */
  readonly dimensions: number;
  /** The quoted, schema-qualified table name, e.g. `"cortexis"."vectors"`. */
  readonly table: string;
  /** Ends the pool if the store opened it (from `connectionString`). */
  close(): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;
/** pgvector builds HNSW indexes on `vector` columns of at most 2000 dimensions. */
const MAX_HNSW_DIMENSIONS = 2000;
/** Records per INSERT statement. */
const UPSERT_BATCH = 500;

type Row = Record<string, unknown>;
type Session = <T>(work: (queryable: SqlQueryable) => Promise<T>) => Promise<T>;

function config(path: string, message: string): ConfigError {
  return new ConfigError(`${path} ${message}`, [{ path, message }]);
}

function checkInteger(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw config(path, `must be an integer from ${min} to ${max} (got ${String(value)})`);
  }
  return value;
}

/** The vector scaled to unit length, as pgvector text `[x,y,…]` (float4 components). */
export function toVectorText(vector: unknown, dimensions: number, path: string): string {
  return `[${toUnitVector(vector, dimensions, path).join(',')}]`;
}

function parseMetadata(value: unknown): Metadata {
  if (typeof value === 'string') return JSON.parse(value) as Metadata;
  return (value ?? {}) as Metadata;
}

async function loadLibrary(library: PgVectorStoreSettings['library']): Promise<PgLibrary> {
  if (typeof library === 'function') return library();
  if (library) return library;
  try {
    const module = (await import('pg')) as unknown as { default?: PgLibrary } & PgLibrary;
    return module.default ?? module;
  } catch (error) {
    throw new ConfigError(
      'createPgVectorStore with connectionString needs pg: npm install pg',
      [{ path: 'library', message: 'pg could not be imported' }],
      { cause: error },
    );
  }
}

/**
 * Runs work in one transaction: a checked-out client of a `pg.Pool`, PGlite's
 * `transaction`, or — for a bare queryable — the queryable itself without a transaction.
 */
function sessionOf(queryable: SqlQueryable): Session {
  if (typeof queryable.connect === 'function') {
    const pool = queryable as unknown as PgPool;
    return (work) => transaction(pool, (client) => work(client as unknown as SqlQueryable));
  }
  if (typeof queryable.transaction === 'function') {
    const run = queryable.transaction.bind(queryable);
    return (work) => run(work);
  }
  return (work) => work(queryable);
}

function checkSettings(settings: PgVectorStoreSettings): void {
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

/**
 * Creates the extension, schema, table and HNSW index when missing, under an advisory lock
 * (so instances starting together do not race), then checks the embedding column's type.
 */
async function prepareTable(
  session: Session,
  settings: PgVectorStoreSettings,
  schema: string,
  table: string,
): Promise<void> {
  const qualified = `"${schema}"."${table}"`;
  const { dimensions, hnsw = {} } = settings;
  await session(async (db) => {
    if (settings.migrate !== false) {
      await db.query('SELECT pg_advisory_xact_lock(hashtext($1::text))', [
        `cortexis:pgvector:${schema}.${table}`,
      ]);
      await db.query('CREATE EXTENSION IF NOT EXISTS vector');
      await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${qualified} (
          namespace text NOT NULL,
          id text NOT NULL,
          embedding vector(${dimensions}) NOT NULL,
          metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
          PRIMARY KEY (namespace, id)
        )`,
      );
      await db.query(
        `CREATE INDEX IF NOT EXISTS "${table}_embedding_hnsw" ON ${qualified}
          USING hnsw (embedding vector_cosine_ops)
          WITH (m = ${hnsw.m ?? 16}, ef_construction = ${hnsw.efConstruction ?? 64})`,
      );
    }
    const { rows } = await db.query(
      `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
        WHERE a.attrelid = to_regclass($1::text) AND a.attname = 'embedding' AND NOT a.attisdropped`,
      [qualified],
    );
    const type = (rows[0] as Row | undefined)?.['type'];
    if (type === undefined) {
      throw config('table', `${qualified} does not exist (migrate is off)`);
    }
    if (type !== `vector(${dimensions})`) {
      throw config('dimensions', `is ${dimensions} but ${qualified}.embedding is ${String(type)}`);
    }
  });
}

/**
 * Connects (or uses the given queryable), prepares the table and returns the store.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import { vector } from '@electric-sql/pglite-pgvector';
 * const store = await createPgVectorStore({
 *   queryable: new PGlite({ extensions: { vector } }),
 *   dimensions: 384,
 * });
 * ```
 */
export async function createPgVectorStore(settings: PgVectorStoreSettings): Promise<PgVectorStore> {
  checkSettings(settings);
  const { dimensions, hnsw = {} } = settings;
  const schema = settings.schema ?? 'cortexis';
  const tableName = settings.table ?? 'vectors';
  const table = `"${schema}"."${tableName}"`;
  const name = settings.name ?? 'pgvector';
  const owned = settings.connectionString !== undefined;
  const queryable: SqlQueryable =
    settings.queryable ??
    settings.pool ??
    new (await loadLibrary(settings.library)).Pool({
      connectionString: settings.connectionString,
      max: settings.maxConnections ?? 10,
    });
  const session = sessionOf(queryable);
  try {
    await prepareTable(session, settings, schema, tableName);
  } catch (error) {
    if (owned) await (queryable as PgPool).end();
    throw error;
  }
  const iterativeScan = hnsw.iterativeScan ?? 'strict_order';
  const rowsOf = async (db: SqlQueryable, sql: string, values: unknown[]): Promise<Row[]> =>
    (await db.query(sql, values)).rows as Row[];

  async function upsert(
    namespace: string,
    records: readonly VectorRecord[],
    options?: CallOptions,
  ): Promise<void> {
    throwIfAborted(options?.signal);
    requireString(namespace, 'namespace');
    if (!Array.isArray(records)) throw invalid('records', 'must be an array');
    // Validate everything before writing; the last record of a repeated id wins.
    const prepared = new Map<string, [string, string, Metadata]>();
    records.forEach((record: VectorRecord, index) => {
      const path = `records.${index}`;
      if (typeof record?.id !== 'string' || record.id.length === 0) {
        throw invalid(`${path}.id`, 'must be a non-empty string');
      }
      const vector = toVectorText(record.vector, dimensions, `${path}.vector`);
      prepared.delete(record.id);
      prepared.set(record.id, [
        record.id,
        vector,
        flatMetadata(record.metadata, `${path}.metadata`, true),
      ]);
    });
    if (prepared.size === 0) return;
    const rows = [...prepared.values()];
    await session(async (db) => {
      for (let start = 0; start < rows.length; start += UPSERT_BATCH) {
        await db.query(
          `INSERT INTO ${table} (namespace, id, embedding, metadata)
            SELECT $1::text, r ->> 0, (r ->> 1)::vector, r -> 2
            FROM jsonb_array_elements($2::text::jsonb) AS r
            ON CONFLICT (namespace, id)
            DO UPDATE SET embedding = EXCLUDED.embedding, metadata = EXCLUDED.metadata`,
          [namespace, JSON.stringify(rows.slice(start, start + UPSERT_BATCH))],
        );
      }
      // Aborted meanwhile: throwing inside the transaction rolls the write back.
      throwIfAborted(options?.signal);
    });
  }

  async function query(
    namespace: string,
    vector: Float32Array | readonly number[],
    options: VectorQueryOptions,
  ): Promise<VectorMatch[]> {
    throwIfAborted(options?.signal);
    requireString(namespace, 'namespace');
    const { filter } = options ?? ({} as Partial<VectorQueryOptions>);
    const k = requirePositiveInteger(options?.k, 'k');
    if (filter !== undefined) validateFilter(filter);
    const values: unknown[] = [];
    const bind = binder(values);
    const target = `${bind(toVectorText(vector, dimensions, 'vector'))}::text::vector`;
    const where = `namespace = ${bind(namespace)}::text AND ${filterToSql(filter, bind)}`;
    const sql = `SELECT id, metadata, 1 - (embedding <=> ${target}) AS score FROM ${table}
      WHERE ${where} ORDER BY embedding <=> ${target} LIMIT ${bind(String(k))}::text::int`;
    const efSearch = Math.min(1000, Math.max(hnsw.efSearch ?? 40, k));
    const rows =
      iterativeScan === 'off' && hnsw.efSearch === undefined && k <= 40
        ? await rowsOf(queryable, sql, values)
        : await session(async (db) => {
            await db.query(
              `SELECT set_config('hnsw.ef_search', $1::text, true), set_config('hnsw.iterative_scan', $2::text, true)`,
              [String(efSearch), iterativeScan],
            );
            return rowsOf(db, sql, values);
          });
    throwIfAborted(options?.signal);
    return rows
      .map((row) => ({
        id: String(row['id']),
        score: Math.max(-1, Math.min(1, Number(row['score']))),
        metadata: parseMetadata(row['metadata']),
      }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async function remove(
    namespace: string,
    target: DeleteTarget,
    options?: CallOptions,
  ): Promise<number> {
    throwIfAborted(options?.signal);
    requireString(namespace, 'namespace');
    const values: unknown[] = [];
    const bind = binder(values);
    let where: string;
    if (target !== null && typeof target === 'object' && 'ids' in target) {
      const { ids } = target;
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
        throw invalid('target.ids', 'must be an array of strings');
      }
      if (ids.length === 0) return 0;
      where = `id IN (SELECT jsonb_array_elements_text(${bind(JSON.stringify(ids))}::text::jsonb))`;
    } else if (target !== null && typeof target === 'object' && 'filter' in target) {
      validateFilter(target.filter);
      where = filterToSql(target.filter, bind);
    } else {
      throw invalid('target', 'must be { ids } or { filter }');
    }
    const sql = `WITH removed AS (DELETE FROM ${table}
      WHERE namespace = ${bind(namespace)}::text AND ${where} RETURNING 1)
      SELECT count(*)::int AS removed FROM removed`;
    return session(async (db) => {
      const [row] = await rowsOf(db, sql, values);
      throwIfAborted(options?.signal);
      return Number(row?.['removed'] ?? 0);
    });
  }

  async function count(namespace: string, options?: CallOptions): Promise<number> {
    throwIfAborted(options?.signal);
    requireString(namespace, 'namespace');
    const [row] = await rowsOf(
      queryable,
      `SELECT count(*)::int AS count FROM ${table} WHERE namespace = $1::text`,
      [namespace],
    );
    throwIfAborted(options?.signal);
    return Number(row?.['count'] ?? 0);
  }

  let closed: Promise<void> | undefined;
  return {
    name,
    specificationVersion: 'v1',
    dimensions,
    table,
    upsert,
    query,
    delete: remove,
    count,
    close() {
      if (!owned) return Promise.resolve();
      return (closed ??= (queryable as PgPool).end());
    },
  };
}
