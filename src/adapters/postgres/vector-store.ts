/**
 * A `VectorStore` on PostgreSQL with pgvector: one table `(namespace, id, embedding
 * vector(dimensions), metadata jsonb)` keyed by `(namespace, id)`, an HNSW index with
 * `vector_cosine_ops`, cosine similarity `1 − (embedding <=> query)`. Metadata filters are
 * compiled to SQL on the jsonb column with the same meaning as the in-memory
 * `matchesFilter`, so the database filters while it walks the index (pgvector ≥ 0.8
 * iterative scans keep a filtered query from coming back with fewer than `k` matches).
 * Works on anything with `query(sql, params) → { rows }`: a `pg.Pool`, a pooled client, or
 * PGlite with its pgvector extension. The settings and their checks are in
 * `./vector-store-settings.ts`.
 */
import { throwIfAborted } from '../../errors/index.js';
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
import { transaction, type PgPool } from './database.js';
import { binder, filterToSql } from './filter-sql.js';
import {
  checkSettings,
  config,
  loadLibrary,
  type PgVectorStoreSettings,
  type SqlQueryable,
} from './vector-store-settings.js';

export type { SqlQueryable } from './vector-store-settings.js';

/** The pgvector store plus its table and a `close()`. */
export interface PgVectorStore extends VectorStore {
  /** The vector length of the table. */
  readonly dimensions: number;
  /** The quoted, schema-qualified table name, e.g. `"cortexis"."vectors"`. */
  readonly table: string;
  /** Ends the pool if the store opened it (from `connectionString`). */
  close(): Promise<void>;
}
/** Records per INSERT statement. */
const UPSERT_BATCH = 500;

type Row = Record<string, unknown>;
type Session = <T>(work: (queryable: SqlQueryable) => Promise<T>) => Promise<T>;
/** The vector scaled to unit length, as pgvector text `[x,y,…]` (float4 components). */
export function toVectorText(vector: unknown, dimensions: number, path: string): string {
  return `[${toUnitVector(vector, dimensions, path).join(',')}]`;
}

function parseMetadata(value: unknown): Metadata {
  if (typeof value === 'string') return JSON.parse(value) as Metadata;
  return (value ?? {}) as Metadata;
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
