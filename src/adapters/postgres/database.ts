/**
 * The part of node-postgres the Postgres stores use (typed structurally, so the published
 * types do not depend on `@types/pg`), transactions, and the migration runner.
 */
import { ConflictError } from '../../errors/index.js';
import type { Row } from '../sql/records.js';
import { LATEST_SCHEMA_VERSION, migrations, migrationsTable } from '../sql/schema.js';

/** A query result. */
export interface PgResult {
  /** The rows. */
  readonly rows: Row[];
  /** Rows changed or returned. */
  readonly rowCount: number | null;
}

/** Something that runs a parameterised query (a pool or a checked-out client). */
export interface PgQueryable {
  /** Runs `text` with `$1…` parameters. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
}

/** A client checked out of a pool. */
export interface PgClient extends PgQueryable {
  /** Returns the client to the pool (destroying it when given an error). */
  release(error?: Error | boolean): void;
}

/** A `pg.Pool`. */
export interface PgPool extends PgQueryable {
  /** Checks a client out. */
  connect(): Promise<PgClient>;
  /** Closes every connection. */
  end(): Promise<void>;
}

/** The `pg` module (or anything with its `Pool` class). */
export interface PgLibrary {
  /** The pool class. */
  readonly Pool: new (config: { connectionString?: string | undefined; max?: number }) => PgPool;
}

/** True for a unique or primary-key violation. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/**
 * Runs `work` in one transaction on one pooled client: commit when it resolves, rollback
 * when it throws. A unique violation (a concurrent writer took the id) becomes a
 * `ConflictError`.
 */
export async function transaction<T>(
  pool: PgPool,
  work: (client: PgQueryable) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollback) {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    }
    if (isUniqueViolation(error)) {
      throw new ConflictError(
        `duplicate id: ${(error as { detail?: string }).detail ?? 'already exists'}`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** A quoted identifier for a schema name (letters, digits and `_` only). */
export function quoteSchema(schema: string): string {
  return `"${schema}"`;
}

/**
 * Applies pending migrations under a transaction-scoped advisory lock keyed by the schema,
 * so instances starting together wait for each other and each migration runs exactly once.
 * Creates the schema if missing. Returns the version reached.
 */
export async function migratePostgres(
  pool: PgPool,
  schema: string,
  target: number = LATEST_SCHEMA_VERSION,
): Promise<number> {
  const table = (name: string): string => `${quoteSchema(schema)}.${name}`;
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`cortexis:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteSchema(schema)}`);
    await client.query(migrationsTable(table));
    const { rows } = await client.query(
      `SELECT COALESCE(MAX(version), 0)::int AS version FROM ${table('migrations')}`,
    );
    let version = Number(rows[0]?.['version'] ?? 0);
    if (version > LATEST_SCHEMA_VERSION) {
      throw new Error(
        `schema ${schema} has version ${version}; this cortexis knows up to ${LATEST_SCHEMA_VERSION}`,
      );
    }
    for (const migration of migrations) {
      if (migration.version <= version || migration.version > target) continue;
      for (const statement of migration.statements('postgres', table)) {
        await client.query(statement);
      }
      await client.query(
        `INSERT INTO ${table('migrations')} (version, name, applied_at) VALUES ($1, $2, $3)`,
        [migration.version, migration.name, new Date().toISOString()],
      );
      version = migration.version;
    }
    return version;
  });
}
