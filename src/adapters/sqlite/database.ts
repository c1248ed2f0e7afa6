/**
 * The part of better-sqlite3's API the SQLite stores use, typed structurally so that the
 * published types do not depend on `@types/better-sqlite3`; and the migration runner.
 */
import { ConfigError } from '../../errors/index.js';
import { LATEST_SCHEMA_VERSION, migrations, migrationsTable } from '../sql/schema.js';

/** A prepared statement. */
export interface SqliteStatement {
  /** Runs a write. */
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  /** The first row, or undefined. */
  get(...params: unknown[]): unknown;
  /** Every row. */
  all(...params: unknown[]): unknown[];
}

/** A transaction function made by `database.transaction(fn)`. */
export type SqliteTransaction<Args extends unknown[], Result> = ((...args: Args) => Result) & {
  /** Runs it in a `BEGIN IMMEDIATE` transaction (takes the write lock up front). */
  immediate(...args: Args): Result;
};

/** An open better-sqlite3 database (what `new Database(path)` returns). */
export interface SqliteDatabase {
  /** Compiles a statement. */
  prepare(sql: string): SqliteStatement;
  /** Runs statements without results. */
  exec(sql: string): unknown;
  /** Runs a PRAGMA. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` in a transaction: commit when it returns, rollback when it throws. */
  transaction<Args extends unknown[], Result>(
    fn: (...args: Args) => Result,
  ): SqliteTransaction<Args, Result>;
  /** Closes the connection. */
  close(): unknown;
  /** False once closed. */
  readonly open: boolean;
}

/** The better-sqlite3 module's default export (the `Database` class). */
export type SqliteLibrary = new (
  filename: string,
  options?: { timeout?: number },
) => SqliteDatabase;

const identity = (name: string): string => name;

/** The schema version of an open database (0 for a new file). */
export function schemaVersion(database: SqliteDatabase): number {
  database.exec(migrationsTable(identity));
  const row = database.prepare('SELECT MAX(version) AS version FROM migrations').get() as
    { version: number | null } | undefined;
  return row?.version ?? 0;
}

/**
 * Applies the migrations up to `target` (default: all) that the file lacks, each in its own
 * `BEGIN IMMEDIATE` transaction that re-checks the version, so two processes opening one
 * file at once apply each migration exactly once. Refuses a file a newer cortexis wrote.
 * Returns the version reached.
 */
export function migrateSqlite(
  database: SqliteDatabase,
  target: number = LATEST_SCHEMA_VERSION,
): number {
  const current = schemaVersion(database);
  if (current > LATEST_SCHEMA_VERSION) {
    throw new ConfigError(
      `the SQLite file has schema version ${current}; this cortexis knows up to ${LATEST_SCHEMA_VERSION}`,
    );
  }
  const applied = database.prepare('SELECT 1 FROM migrations WHERE version = ?');
  const record = database.prepare(
    'INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  for (const migration of migrations) {
    if (migration.version > target) break;
    database
      .transaction(() => {
        if (applied.get(migration.version)) return;
        for (const statement of migration.statements('sqlite', identity)) database.exec(statement);
        record.run(migration.version, migration.name, new Date().toISOString());
      })
      .immediate();
  }
  return schemaVersion(database);
}

/**
 * After a deletion: copies the write-ahead log into the database and truncates it to zero
 * bytes, so the deleted rows' old page images do not stay in the `-wal` file (with
 * `secure_delete` on, the freed space in the database itself is zeroed). Best effort: a
 * reader of another connection still on an old snapshot makes it stop short (the next
 * checkpoint finishes it); a failure is not the deletion's.
 */
export function checkpointAfterDelete(database: SqliteDatabase): void {
  try {
    database.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // The deletion is committed; the log is checkpointed later (automatically or next time).
  }
}
