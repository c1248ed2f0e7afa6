/**
 * `cortexis/postgres`: `SessionStore`, `LearningSink`, `GraphStore` and `KeywordIndex` (BM25
 * over an inverted index in tables) on PostgreSQL, for many app instances sharing one
 * database, with node-postgres (`pg`, an optional peer dependency imported on first use;
 * pass `library` or `pool` to inject it). Pooled connections, one transaction per turn write
 * (locking the session row, so instances append in one order), versioned migrations under an
 * advisory lock, all tables in one `schema`.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createPostgresStores } from 'cortexis/postgres';
 *
 * const stores = await createPostgresStores({ connectionString: process.env.DATABASE_URL });
 * const engine = createChatEngine({
 *   sessionStore: stores.sessionStore,
 *   learningSink: stores.learningSink,
 *   keywordIndex: stores.keywordIndex,
 * });
 * // … on shutdown:
 * await stores.close();
 * ```
 * @module
 */
import { ConfigError } from '../../errors/index.js';
import type { GraphStore } from '../../ports/graph-store.js';
import type { KeywordIndex } from '../../ports/keyword-index.js';
import type { LearningSink } from '../../ports/learning-sink.js';
import type { SessionStore } from '../../ports/session-store.js';
import { importOptional } from '../../util/optional-import.js';
import { LATEST_SCHEMA_VERSION } from '../sql/schema.js';
import { migratePostgres, quoteSchema, type PgLibrary, type PgPool } from './database.js';
import { createPostgresGraphStore } from './graph-store.js';
import {
  checkKeywordIndexSettings,
  createPostgresKeywordIndex,
  type PostgresKeywordIndexSettings,
} from './keyword-index.js';
import { createPostgresLearningSink } from './learning-sink.js';
import { createPostgresSessionStore } from './session-store.js';

export type { PgClient, PgLibrary, PgPool, PgQueryable, PgResult } from './database.js';
export type { Row } from '../sql/records.js';
export { migratePostgres } from './database.js';
export type { PostgresKeywordIndexSettings } from './keyword-index.js';
export { LATEST_SCHEMA_VERSION } from '../sql/schema.js';

/** Settings of {@link createPostgresStores}. Give `connectionString` or `pool`. */
export interface PostgresStoresSettings {
  /** A `postgres://` URL; the stores open (and `close()` ends) their own pool. */
  readonly connectionString?: string | undefined;
  /** A `pg.Pool` to use instead; `close()` leaves it open. */
  readonly pool?: PgPool | undefined;
  /** The `pg` module, or a function loading it (default: `import('pg')`). */
  readonly library?: PgLibrary | (() => Promise<PgLibrary>) | undefined;
  /** Schema holding the tables, created if missing (default `cortexis`); letters, digits, `_`. */
  readonly schema?: string | undefined;
  /** Most pooled connections when the stores open the pool (default 10). */
  readonly maxConnections?: number | undefined;
  /** Apply pending migrations on start (default true); false fails on an outdated schema. */
  readonly migrate?: boolean | undefined;
  /** Adapter name reported in events and errors (default `postgres`). */
  readonly name?: string | undefined;
  /** BM25 parameters and tokenizer of the keyword index (defaults: the in-memory index's). */
  readonly keywordIndex?: PostgresKeywordIndexSettings | undefined;
}

/** The stores on one Postgres schema. */
export interface PostgresStores {
  /** Sessions, messages and their sources. */
  readonly sessionStore: SessionStore;
  /** Learning trajectories and steps. */
  readonly learningSink: LearningSink;
  /** Knowledge-graph nodes and edges. */
  readonly graphStore: GraphStore;
  /** BM25 keyword index over chunks, shared by every instance on the schema. */
  readonly keywordIndex: KeywordIndex;
  /** The pool the stores use. */
  readonly pool: PgPool;
  /** The schema holding the tables. */
  readonly schema: string;
  /** Ends the pool if these stores opened it. */
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The `pg` module: `settings.library`, or imported on first use. */
function loadLibrary(library: PostgresStoresSettings['library']): Promise<PgLibrary> {
  return importOptional<PgLibrary>({
    name: 'pg',
    load: () => import('pg'),
    injected: library,
    neededBy: 'cortexis/postgres',
  });
}

/**
 * Connects, applies pending migrations (under an advisory lock, so instances starting
 * together do not race) and returns the stores.
 */
export async function createPostgresStores(
  settings: PostgresStoresSettings,
): Promise<PostgresStores> {
  if (typeof settings !== 'object' || settings === null) {
    throw new ConfigError('createPostgresStores needs { connectionString } or { pool }');
  }
  const { schema = 'cortexis', maxConnections = 10, migrate = true } = settings;
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new ConfigError('schema must be letters, digits and _ (at most 63)', [
      { path: 'schema', message: 'must match /^[A-Za-z_][A-Za-z0-9_]{0,62}$/' },
    ]);
  }
  checkKeywordIndexSettings(settings.keywordIndex);
  if (!Number.isInteger(maxConnections) || maxConnections < 1) {
    throw new ConfigError('maxConnections must be an integer ≥ 1', [
      { path: 'maxConnections', message: 'must be an integer ≥ 1' },
    ]);
  }
  const { connectionString } = settings;
  if (
    settings.pool === undefined &&
    (typeof connectionString !== 'string' || connectionString.length === 0)
  ) {
    throw new ConfigError('createPostgresStores needs { connectionString } or { pool }', [
      { path: 'connectionString', message: 'must be a non-empty string when no pool is given' },
    ]);
  }
  const owned = settings.pool === undefined;
  const pool =
    settings.pool ??
    new (await loadLibrary(settings.library)).Pool({ connectionString, max: maxConnections });
  const table = (name: string): string => `${quoteSchema(schema)}.${name}`;
  try {
    if (migrate) {
      await migratePostgres(pool, schema);
    } else {
      const { rows } = await pool.query(
        `SELECT COALESCE(MAX(version), 0)::int AS version FROM ${table('migrations')}`,
      );
      const version = Number(rows[0]?.['version'] ?? 0);
      if (version !== LATEST_SCHEMA_VERSION) {
        throw new ConfigError(
          `schema ${schema} has version ${version}, expected ${LATEST_SCHEMA_VERSION} (migrate is off)`,
        );
      }
    }
  } catch (error) {
    if (owned) await pool.end();
    throw error;
  }
  const name = settings.name ?? 'postgres';
  let closed: Promise<void> | undefined;
  return {
    sessionStore: createPostgresSessionStore(pool, table, name),
    learningSink: createPostgresLearningSink(pool, table, name),
    graphStore: createPostgresGraphStore(pool, table, name),
    keywordIndex: createPostgresKeywordIndex(pool, table, name, settings.keywordIndex),
    pool,
    schema,
    close() {
      if (!owned) return Promise.resolve();
      return (closed ??= pool.end());
    },
  };
}
export { createPgVectorStore, type PgVectorStore } from './vector-store.js';
export type {
  PgVectorHnswSettings,
  PgVectorIterativeScan,
  PgVectorStoreSettings,
  SqlQueryable,
} from './vector-store-settings.js';
