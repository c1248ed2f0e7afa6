/**
 * A `VectorStore` on LanceDB (embedded, files in a directory or on object storage): one
 * table `(key, namespace, id, vector FixedSizeList<Float32>[dimensions], metadata, terms)`.
 * `key` is `["namespace","id"]` as JSON, declared the table's unenforced primary key, so an
 * upsert is one `mergeInsert` on it and LanceDB's optimistic commits detect two writers
 * inserting the same key at once (a retried commit instead of a duplicate row). Search is
 * exact (brute force) until `createIndex()` builds an ANN index; scores are cosine
 * similarity `1 − cosine distance` of unit-length vectors. Metadata filters become SQL on
 * the `terms` column (see `./filter.ts`), finished in JavaScript for range operators.
 */
import type { Connection, Table } from '@lancedb/lancedb';
import { ConfigError, throwIfAborted } from '../../errors/index.js';
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

/** Field metadata LanceDB reads as "this column is the unenforced primary key". */
const PRIMARY_KEY = 'lance-schema:unenforced-primary-key';
/** LanceDB table names: letters, digits, `_`, `-`, `.` (not first, to keep `..` out). */
const TABLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const MAX_DIMENSIONS = 65_536;
const DEFAULT_EF_SEARCH = 400;
/** Lone UTF-16 surrogates, which Arrow's UTF-8 strings cannot keep. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Keys per `IN (…)` list of a delete by ids. */
const DELETE_BATCH = 1000;
/** Rows per `OR` chain when a range filter deletes row by row. */
const GUARDED_DELETE_BATCH = 100;
/** Commit attempts of a write when LanceDB reports a conflict it did not resolve itself. */
const COMMIT_ATTEMPTS = 5;
const COMMIT_CONFLICT = /conflict|concurrent writ/i;

/** Expected column types, as Arrow prints them. */
const COLUMNS = (dimensions: number): Record<string, string> => ({
  key: 'Utf8',
  namespace: 'Utf8',
  id: 'Utf8',
  vector: `FixedSizeList[${dimensions}]<Float32>`,
  metadata: 'Utf8',
  terms: 'List<Utf8>',
});

type Row = Record<string, unknown>;
type ArrowModule = typeof import('apache-arrow');

function config(path: string, message: string): ConfigError {
  return new ConfigError(`${path} ${message}`, [{ path, message }]);
}

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

const delay = (milliseconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Runs a write, retrying when LanceDB gives up on a commit conflict with a concurrent
 * writer (it retries most conflicts itself). Every write here is idempotent when its
 * commit failed: an upsert by key, a delete by predicate.
 */
async function withCommitRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= COMMIT_ATTEMPTS || !COMMIT_CONFLICT.test(String(error))) throw error;
      await delay(20 * 2 ** attempt * (0.5 + Math.random()));
    }
  }
}

function checkSettings(settings: LanceDbVectorStoreSettings): void {
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

async function loadLibrary(
  library: LanceDbVectorStoreSettings['library'],
): Promise<LanceDbLibrary> {
  let loaded: unknown;
  try {
    if (typeof library === 'function') loaded = await library();
    else if (library !== undefined) loaded = library;
    else {
      const module = (await import('@lancedb/lancedb')) as unknown as {
        default?: LanceDbLibrary;
      } & LanceDbLibrary;
      loaded = typeof module.connect === 'function' ? module : module.default;
    }
  } catch (error) {
    throw new ConfigError(
      'createLanceDbVectorStore needs @lancedb/lancedb: npm i @lancedb/lancedb@0.37 apache-arrow@18.1',
      [{ path: 'library', message: '@lancedb/lancedb could not be imported' }],
      { cause: error },
    );
  }
  if (typeof (loaded as Partial<LanceDbLibrary> | undefined)?.connect !== 'function') {
    throw config('library', 'is not the @lancedb/lancedb module (it has no connect function)');
  }
  return loaded as LanceDbLibrary;
}

async function loadArrow(): Promise<ArrowModule> {
  try {
    const module = (await import('apache-arrow')) as ArrowModule & { default?: ArrowModule };
    return typeof module.Schema === 'function' ? module : module.default!;
  } catch (error) {
    throw new ConfigError(
      'createLanceDbVectorStore needs apache-arrow to create its table: npm i apache-arrow@18.1',
      [{ path: 'library', message: 'apache-arrow could not be imported' }],
      { cause: error },
    );
  }
}

/** The Arrow schema of the table: `key` is the unenforced primary key. */
function tableSchema(arrow: ArrowModule, dimensions: number): InstanceType<ArrowModule['Schema']> {
  const text = (name: string, metadata?: Map<string, string>) =>
    new arrow.Field(name, new arrow.Utf8(), false, metadata);
  return new arrow.Schema([
    text('key', new Map([[PRIMARY_KEY, 'true']])),
    text('namespace'),
    text('id'),
    new arrow.Field(
      'vector',
      new arrow.FixedSizeList(dimensions, new arrow.Field('item', new arrow.Float32(), true)),
      false,
    ),
    text('metadata'),
    new arrow.Field(
      'terms',
      new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)),
      false,
    ),
  ]);
}

/** Throws a `ConfigError` unless the table has this store's columns and dimension. */
async function checkTable(table: Table, name: string, dimensions: number): Promise<void> {
  const schema = await table.schema();
  const fields = new Map(schema.fields.map((field) => [field.name, field]));
  for (const [column, expected] of Object.entries(COLUMNS(dimensions))) {
    const field = fields.get(column);
    const found = field === undefined ? 'missing' : String(field.type);
    if (found === expected) continue;
    if (column === 'vector' && field !== undefined) {
      throw config('dimensions', `is ${dimensions} but table ${name} stores vectors as ${found}`);
    }
    throw config(
      'table',
      `${name} is not a cortexis vector table (column ${column}: expected ${expected}, found ${found})`,
    );
  }
  if (fields.get('key')?.metadata.get(PRIMARY_KEY) !== 'true') {
    throw config('table', `${name} is not a cortexis vector table (key is not its primary key)`);
  }
}

/**
 * Opens the table, or creates it empty when missing. Two connections creating it at once
 * both succeed: the loser of the race sees "already exists" or a commit conflict, and opens
 * the winner's table.
 */
async function openOrCreateTable(
  connection: Connection,
  name: string,
  dimensions: number,
): Promise<Table> {
  let table: Table;
  try {
    table = await connection.openTable(name);
  } catch (error) {
    if (!/not found|does not exist/i.test(String(error))) throw error;
    const schema = tableSchema(await loadArrow(), dimensions);
    try {
      table = await connection.createEmptyTable(name, schema, { mode: 'create', existOk: true });
    } catch (raced) {
      // Another connection won the race: its create either made the table first ("already
      // exists") or committed first, preempting ours ("Retryable commit conflict").
      if (!/already exists|commit conflict|preempted/i.test(String(raced))) throw raced;
      table = await connection.openTable(name);
    }
  }
  try {
    await checkTable(table, name, dimensions);
  } catch (error) {
    table.close();
    throw error;
  }
  return table;
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
