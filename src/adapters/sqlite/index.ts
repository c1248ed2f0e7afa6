/**
 * `cortexis/sqlite`: `SessionStore`, `LearningSink`, `GraphStore` and an FTS5 `KeywordIndex`
 * on one SQLite file, with better-sqlite3 (an optional peer dependency, imported on first
 * use; pass `library` or `database` to inject it). WAL journal, foreign keys on,
 * `secure_delete` on and a WAL checkpoint after each session or user deletion, one
 * transaction per write (a turn's message, its sources and the session totals commit
 * together), versioned migrations that upgrade an existing file.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createSqliteStores } from 'cortexis/sqlite';
 *
 * const stores = await createSqliteStores({ path: 'cortexis.db' });
 * const engine = createChatEngine({
 *   sessionStore: stores.sessionStore,
 *   learningSink: stores.learningSink,
 *   keywordIndex: stores.keywordIndex,
 * });
 * // … on shutdown:
 * stores.close();
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
import {
  migrateSqlite,
  schemaVersion,
  type SqliteDatabase,
  type SqliteLibrary,
} from './database.js';
import { createSqliteGraphStore } from './graph-store.js';
import { createSqliteKeywordIndex } from './keyword-index.js';
import { createSqliteLearningSink } from './learning-sink.js';
import { createSqliteSessionStore } from './session-store.js';

export type {
  SqliteDatabase,
  SqliteLibrary,
  SqliteStatement,
  SqliteTransaction,
} from './database.js';
export { migrateSqlite, schemaVersion } from './database.js';
export { LATEST_SCHEMA_VERSION } from '../sql/schema.js';

/** Settings of {@link createSqliteStores}. Give `path` or `database`. */
export interface SqliteStoresSettings {
  /** The database file (created if missing); `':memory:'` for a private in-memory database. */
  readonly path?: string | undefined;
  /** An open better-sqlite3 database to use instead of opening `path`; `close()` leaves it open. */
  readonly database?: SqliteDatabase | undefined;
  /** The better-sqlite3 `Database` class, or a function loading it (default: `import('better-sqlite3')`). */
  readonly library?: SqliteLibrary | (() => Promise<SqliteLibrary>) | undefined;
  /**
   * `full` (default): every commit is fsynced, so a committed turn survives power loss and
   * OS crashes too. `normal`: in WAL mode a commit survives a crash of the process (the
   * database is never corrupted), but the last commits may be lost on power loss; faster.
   */
  readonly synchronous?: 'full' | 'normal' | undefined;
  /** How long a write waits for another process's lock before failing, ms (default 5000). */
  readonly busyTimeoutMs?: number | undefined;
  /** Apply pending migrations on open (default true); false fails on an outdated file. */
  readonly migrate?: boolean | undefined;
  /** Adapter name reported in events and errors (default `sqlite`). */
  readonly name?: string | undefined;
}

/** The stores on one SQLite file. */
export interface SqliteStores {
  /** Sessions, messages and their sources. */
  readonly sessionStore: SessionStore;
  /** Learning trajectories and steps. */
  readonly learningSink: LearningSink;
  /** Knowledge-graph nodes and edges. */
  readonly graphStore: GraphStore;
  /** FTS5 keyword index. */
  readonly keywordIndex: KeywordIndex;
  /** The open better-sqlite3 database. */
  readonly database: SqliteDatabase;
  /** Closes the database if these stores opened it; the stores are unusable afterwards. */
  close(): void;
}

/** better-sqlite3's `Database` class: `settings.library`, or imported on first use. */
function loadLibrary(library: SqliteStoresSettings['library']): Promise<SqliteLibrary> {
  return importOptional<SqliteLibrary>({
    name: 'better-sqlite3',
    load: () => import('better-sqlite3'),
    injected: library,
    neededBy: 'cortexis/sqlite',
    install: 'npm install better-sqlite3@12',
    isClass: true,
  });
}

/**
 * Opens (or creates) a SQLite database, sets WAL, `synchronous`, foreign keys and the busy
 * timeout, applies pending migrations, and returns the four stores on it.
 */
export async function createSqliteStores(settings: SqliteStoresSettings): Promise<SqliteStores> {
  if (typeof settings !== 'object' || settings === null) {
    throw new ConfigError('createSqliteStores needs { path } or { database }');
  }
  const { path, synchronous = 'full', busyTimeoutMs = 5000, migrate = true } = settings;
  if (settings.database === undefined && (typeof path !== 'string' || path.length === 0)) {
    throw new ConfigError('createSqliteStores needs { path } or { database }', [
      { path: 'path', message: 'must be a non-empty string when no database is given' },
    ]);
  }
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new ConfigError("synchronous must be 'full' or 'normal'", [
      { path: 'synchronous', message: "must be 'full' or 'normal'" },
    ]);
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new ConfigError('busyTimeoutMs must be an integer ≥ 0', [
      { path: 'busyTimeoutMs', message: 'must be an integer ≥ 0' },
    ]);
  }
  const owned = settings.database === undefined;
  const database =
    settings.database ??
    new (await loadLibrary(settings.library))(path!, { timeout: busyTimeoutMs });
  try {
    database.pragma(`busy_timeout = ${busyTimeoutMs}`);
    database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${synchronous.toUpperCase()}`);
    database.pragma('foreign_keys = ON');
    // Deleted rows are overwritten with zeros, not left in free pages (erasure must erase).
    database.pragma('secure_delete = ON');
    if (migrate) {
      migrateSqlite(database);
    } else if (schemaVersion(database) !== LATEST_SCHEMA_VERSION) {
      throw new ConfigError(
        `the SQLite file has schema version ${schemaVersion(database)}, expected ${LATEST_SCHEMA_VERSION} (migrate is off)`,
      );
    }
    // FTS5 keeps a deleted record's terms in its index segments until a merge, unless its
    // own `secure-delete` option is set (SQLite 3.42+; stored in the index, so set once).
    const fts = database
      .prepare("SELECT v FROM keyword_fts_config WHERE k = 'secure-delete'")
      .get() as { v: number } | undefined;
    if (fts?.v !== 1) {
      database.exec("INSERT INTO keyword_fts (keyword_fts, rank) VALUES ('secure-delete', 1)");
    }
  } catch (error) {
    if (owned) database.close();
    throw error;
  }
  const name = settings.name ?? 'sqlite';
  return {
    sessionStore: createSqliteSessionStore(database, name),
    learningSink: createSqliteLearningSink(database, name),
    graphStore: createSqliteGraphStore(database, name),
    keywordIndex: createSqliteKeywordIndex(database, `${name}-fts5`),
    database,
    close() {
      if (owned && database.open) database.close();
    },
  };
}
