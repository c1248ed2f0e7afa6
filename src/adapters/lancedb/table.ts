/**
 * The LanceDB table behind the vector store: its Arrow schema (`key` is the unenforced
 * primary key), the check that an existing table has this store's columns and dimension,
 * opening or creating it when two connections race, and retrying a write whose commit
 * conflicted with another writer.
 */
import type { Connection, Table } from '@lancedb/lancedb';
import { importOptional } from '../../util/optional-import.js';
import { config } from './settings.js';

/** Field metadata LanceDB reads as "this column is the unenforced primary key". */
const PRIMARY_KEY = 'lance-schema:unenforced-primary-key';
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

type ArrowModule = typeof import('apache-arrow');

const delay = (milliseconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Runs a write, retrying when LanceDB gives up on a commit conflict with a concurrent
 * writer (it retries most conflicts itself). Every write here is idempotent when its
 * commit failed: an upsert by key, a delete by predicate.
 */
export async function withCommitRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= COMMIT_ATTEMPTS || !COMMIT_CONFLICT.test(String(error))) throw error;
      await delay(20 * 2 ** attempt * (0.5 + Math.random()));
    }
  }
}

/** The `apache-arrow` module, imported on first use (only to create a table). */
function loadArrow(): Promise<ArrowModule> {
  return importOptional<ArrowModule>({
    name: 'apache-arrow',
    load: () => import('apache-arrow'),
    neededBy: 'createLanceDbVectorStore',
    purpose: 'to create its table',
    install: 'npm i apache-arrow@18.1',
    exportName: 'Schema',
  });
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
export async function openOrCreateTable(
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
