/**
 * A `VectorStore` on LanceDB (embedded, files in a directory or on object storage): one
 * table `(key, namespace, id, vector FixedSizeList<Float32>[dimensions], metadata, terms)`.
 * `key` is `["namespace","id"]` as JSON, declared the table's unenforced primary key, so an
 * upsert is one `mergeInsert` on it and LanceDB's optimistic commits detect two writers
 * inserting the same key at once (a retried commit instead of a duplicate row). Search is
 * exact (brute force) until `createIndex()` builds an ANN index; scores are cosine
 * similarity `1 − cosine distance` of unit-length vectors. Metadata filters become SQL on
 * the `terms` column (see `./filter.ts`), finished in JavaScript for range operators. The
 * settings and their checks are in `./settings.ts`; the table's schema, opening and commit
 * retries in `./table.ts`.
 */
import type { Table } from '@lancedb/lancedb';
import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget, Metadata, MetadataFilter } from '../../ports/common.js';
import type {
  VectorMatch,
  VectorQueryOptions,
  VectorRecord,
  VectorStore,
} from '../../ports/vector-store.js';
import { compileFilter, validateFilter } from '../../query/filter.js';
import { flatMetadata, invalid, requirePositiveInteger, toUnitVector } from '../shared/validate.js';
import { filterToSql, metadataTerms, sqlString } from './filter.js';
import {
  checkSettings,
  loadLibrary,
  type LanceDbLibrary,
  type LanceDbVectorStoreSettings,
} from './settings.js';
import { openOrCreateTable, withCommitRetries } from './table.js';

/** Options of {@link LanceDbVectorStore.createIndex}. */
export interface LanceDbIndexOptions {
  /**
   * The vector index: `hnsw` (default), LanceDB's IVF_HNSW_SQ (HNSW graphs over 8-bit
   * scalar-quantised vectors); `ivf_pq`, inverted file with product quantisation (needs at
   * least 256 rows); `none`, no vector index (an existing one is dropped), so search stays
   * exact. Both indexes are approximate: they can miss true neighbours.
   */
  readonly vector?: 'hnsw' | 'ivf_pq' | 'none' | undefined;
  /** IVF partitions of the vector index (default: LanceDB's choice from the row count). */
  readonly numPartitions?: number | undefined;
}

/** The LanceDB store plus its table, index maintenance and a `close()`. */
export interface LanceDbVectorStore extends VectorStore {
  /** The vector length of the table. */
  readonly dimensions: number;
  /** The table name. */
  readonly table: string;
  /**
   * Builds (or rebuilds) scalar indexes on `key`, `namespace` and `terms` (exact; they speed
   * up upserts, deletes and filters) and, unless `vector` is `none`, an approximate cosine
   * index on the vectors. Rows written later stay searchable (scanned exactly) until
   * `optimize()` folds them in.
   */
  createIndex(options?: LanceDbIndexOptions): Promise<void>;
  /** Compacts small files left by many writes, folds new rows into indexes, prunes old versions. */
  optimize(): Promise<void>;
  /** Closes the table, and the connection if the store opened it (from `uri`). */
  close(): Promise<void>;
}

const DEFAULT_EF_SEARCH = 400;
/** Lone UTF-16 surrogates, which Arrow's UTF-8 strings cannot keep. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Keys per `IN (…)` list of a delete by ids. */
const DELETE_BATCH = 1000;
/** Rows per `OR` chain when a range filter deletes row by row. */
const GUARDED_DELETE_BATCH = 100;

type Row = Record<string, unknown>;

function checkText(value: unknown, path: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw invalid(path, 'must be a non-empty string');
  }
  if (LONE_SURROGATE.test(value)) throw invalid(path, 'must not contain lone surrogates');
}

/** The primary key of a record: namespace and id as a JSON pair (unambiguous). */
export function recordKey(namespace: string, id: string): string {
  return JSON.stringify([namespace, id]);
}

function parseMetadata(value: unknown): Metadata {
  return typeof value === 'string' ? (JSON.parse(value) as Metadata) : {};
}
/**
 * Connects (or uses the given connection), opens or creates the table and returns the store.
 *
 * @example
 * ```ts
 * const store = await createLanceDbVectorStore({ uri: './data/vectors', dimensions: 384 });
 * ```
 */
export async function createLanceDbVectorStore(
  settings: LanceDbVectorStoreSettings,
): Promise<LanceDbVectorStore> {
  checkSettings(settings);
  const { dimensions } = settings;
  const tableName = settings.table ?? 'cortexis_vectors';
  const name = settings.name ?? 'lancedb';
  const efSearch = settings.efSearch ?? DEFAULT_EF_SEARCH;
  let library: Promise<LanceDbLibrary> | undefined;
  const libraryOf = (): Promise<LanceDbLibrary> => (library ??= loadLibrary(settings.library));
  const owned = settings.uri !== undefined;
  const connection =
    settings.connection ??
    (await (
      await libraryOf()
    ).connect(settings.uri!, {
      readConsistencyInterval: (settings.readConsistencyIntervalMs ?? 0) / 1000,
    }));
  let table: Table;
  try {
    table = await openOrCreateTable(connection, tableName, dimensions);
  } catch (error) {
    if (owned) connection.close();
    throw error;
  }

  const inNamespace = (namespace: string, where: string | undefined): string =>
    `namespace = ${sqlString(namespace)}${where === undefined ? '' : ` AND ${where}`}`;

  async function upsert(
    namespace: string,
    records: readonly VectorRecord[],
    options?: CallOptions,
  ): Promise<void> {
    throwIfAborted(options?.signal);
    checkText(namespace, 'namespace');
    if (!Array.isArray(records)) throw invalid('records', 'must be an array');
    // Validate everything before writing; the last record of a repeated id wins.
    const rows = new Map<string, Row>();
    records.forEach((record: VectorRecord, index) => {
      const path = `records.${index}`;
      checkText(record?.id, `${path}.id`);
      const vector = toUnitVector(record.vector, dimensions, `${path}.vector`);
      const metadata = flatMetadata(record.metadata, `${path}.metadata`);
      rows.delete(record.id);
      rows.set(record.id, {
        key: recordKey(namespace, record.id),
        namespace,
        id: record.id,
        vector,
        metadata: JSON.stringify(metadata),
        terms: metadataTerms(metadata),
      });
    });
    if (rows.size === 0) return;
    const data = [...rows.values()];
    // One commit for the whole call. Not cancelled once started: an abort after the commit
    // cannot take the write back, so the call reports it as done.
    await withCommitRetries(() =>
      table.mergeInsert('key').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data),
    );
  }

  async function hasVectorIndex(): Promise<boolean> {
    const indices = await table.listIndices();
    return indices.some((index) => index.columns.includes('vector'));
  }

  async function query(
    namespace: string,
    vector: Float32Array | readonly number[],
    options: VectorQueryOptions,
  ): Promise<VectorMatch[]> {
    throwIfAborted(options?.signal);
    checkText(namespace, 'namespace');
    const { filter } = options ?? ({} as Partial<VectorQueryOptions>);
    const k = requirePositiveInteger(options?.k, 'k');
    if (filter !== undefined) validateFilter(filter);
    const target = toUnitVector(vector, dimensions, 'vector');
    const sql = filterToSql(filter);
    const where = inNamespace(namespace, sql.where);
    const accepts = compileFilter(filter);
    // SQL alone decides an exact filter: fetch k. Otherwise over-fetch, finish the filter
    // here and fetch more while fewer than k pass and the table had more to give.
    let limit = sql.exact ? k : Math.max(4 * k, 64);
    let exhaustive = false;
    for (;;) {
      let search = table
        .vectorSearch(target)
        .column('vector')
        .distanceType('cosine')
        .where(where)
        .select(['id', 'metadata', '_distance'])
        .limit(limit)
        // With an ANN index: a wider HNSW search, and exact distances for the returned rows
        // (neither changes an exact search).
        .ef(Math.max(efSearch, limit))
        .refineFactor(1);
      if (exhaustive) search = search.bypassVectorIndex();
      const rows = (await search.toArray()) as Row[];
      throwIfAborted(options?.signal);
      const matches: VectorMatch[] = [];
      for (const row of rows) {
        const metadata = parseMetadata(row['metadata']);
        if (!accepts(metadata)) continue;
        const score = Math.max(-1, Math.min(1, 1 - Number(row['_distance'])));
        matches.push({ id: String(row['id']), score, metadata });
      }
      if (matches.length < k && rows.length < limit && !exhaustive && (await hasVectorIndex())) {
        // An ANN index may stop short of `limit` under a filter: ask the exact search.
        exhaustive = true;
        continue;
      }
      if (matches.length >= k || rows.length < limit) {
        return matches
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, k);
      }
      limit *= 4;
    }
  }

  async function deleteWhere(where: string): Promise<number> {
    const result = await withCommitRetries(() => table.delete(where));
    return result.numDeletedRows;
  }

  async function deleteByFilter(namespace: string, filter: MetadataFilter): Promise<number> {
    const sql = filterToSql(filter);
    const where = inNamespace(namespace, sql.where);
    if (sql.exact) return deleteWhere(where);
    // Ranges: pick the rows here, then delete each only if its metadata is still what was
    // judged, so a record rewritten meanwhile by another writer is left alone.
    const accepts = compileFilter(filter);
    const rows = (await table.query().where(where).select(['key', 'metadata']).toArray()) as Row[];
    const doomed = rows.filter((row) => accepts(parseMetadata(row['metadata'])));
    let removed = 0;
    for (let start = 0; start < doomed.length; start += GUARDED_DELETE_BATCH) {
      const guards = doomed
        .slice(start, start + GUARDED_DELETE_BATCH)
        .map(
          (row) =>
            `(key = ${sqlString(String(row['key']))} AND metadata = ${sqlString(String(row['metadata']))})`,
        );
      removed += await deleteWhere(guards.join(' OR '));
    }
    return removed;
  }

  async function remove(
    namespace: string,
    target: DeleteTarget,
    options?: CallOptions,
  ): Promise<number> {
    throwIfAborted(options?.signal);
    checkText(namespace, 'namespace');
    if (target !== null && typeof target === 'object' && 'ids' in target) {
      const { ids } = target;
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
        throw invalid('target.ids', 'must be an array of strings');
      }
      const keys = [...new Set(ids)].map((id) => sqlString(recordKey(namespace, id)));
      let removed = 0;
      for (let start = 0; start < keys.length; start += DELETE_BATCH) {
        removed += await deleteWhere(
          `key IN (${keys.slice(start, start + DELETE_BATCH).join(', ')})`,
        );
      }
      return removed;
    }
    if (target !== null && typeof target === 'object' && 'filter' in target) {
      validateFilter(target.filter);
      return deleteByFilter(namespace, target.filter);
    }
    throw invalid('target', 'must be { ids } or { filter }');
  }

  async function count(namespace: string, options?: CallOptions): Promise<number> {
    throwIfAborted(options?.signal);
    checkText(namespace, 'namespace');
    const rows = await table.countRows(inNamespace(namespace, undefined));
    throwIfAborted(options?.signal);
    return rows;
  }

  async function createIndex(options: LanceDbIndexOptions = {}): Promise<void> {
    const { vector = 'hnsw', numPartitions } = options;
    if (vector !== 'hnsw' && vector !== 'ivf_pq' && vector !== 'none') {
      throw invalid('vector', `must be 'hnsw', 'ivf_pq' or 'none' (got ${String(vector)})`);
    }
    if (
      numPartitions !== undefined &&
      (typeof numPartitions !== 'number' || !Number.isInteger(numPartitions) || numPartitions < 1)
    ) {
      throw invalid('numPartitions', `must be a positive integer (got ${String(numPartitions)})`);
    }
    const { Index } = await libraryOf();
    const scalar: Array<[string, ReturnType<typeof Index.btree>]> = [
      ['key', Index.btree()],
      ['namespace', Index.btree()],
      ['terms', Index.labelList()],
    ];
    for (const [column, config] of scalar) {
      await withCommitRetries(() => table.createIndex(column, { config, replace: true }));
    }
    if (vector === 'none') {
      for (const index of await table.listIndices()) {
        if (index.columns.includes('vector')) {
          await withCommitRetries(() => table.dropIndex(index.name));
        }
      }
      return;
    }
    const settings = {
      distanceType: 'cosine' as const,
      ...(numPartitions === undefined ? {} : { numPartitions }),
    };
    const config = vector === 'hnsw' ? Index.hnswSq(settings) : Index.ivfPq(settings);
    await withCommitRetries(() => table.createIndex('vector', { config, replace: true }));
  }

  async function optimize(): Promise<void> {
    await withCommitRetries(() => table.optimize());
  }

  let closed = false;
  return {
    name,
    specificationVersion: 'v1',
    dimensions,
    table: tableName,
    upsert,
    query,
    delete: remove,
    count,
    createIndex,
    optimize,
    close() {
      if (!closed) {
        closed = true;
        table.close();
        if (owned) connection.close();
      }
      return Promise.resolve();
    },
  };
}
