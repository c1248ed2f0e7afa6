/**
 * Schema version 7 makes the idempotency key unique per session. Databases written before it
 * may hold the same key twice (two instances both stored the message): the migration keeps
 * the first user message, points the later one's answers at it, clears the later one's key,
 * and deletes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStores, migratePostgres } from '../../src/adapters/postgres/index.js';
import { createSqliteStores, migrateSqlite } from '../../src/adapters/sqlite/index.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { expectErrorCode, uniqueName } from '../../src/testing/shared.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];

/** Session s1 as two instances wrote it before version 7: key k1 stored and answered twice. */
function seedStatements(table: (name: string) => string): string[] {
  return [
    `INSERT INTO ${table('sessions')} (id, user_id, status, created_at, updated_at)
     VALUES ('s1', 'u1', 'active', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'),
            ('s2', 'u1', 'active', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
    `INSERT INTO ${table('messages')} (id, session_id, seq, user_id, role, content, status, created_at, request_id, reply_to)
     VALUES ('q1', 's1', 1, 'u1', 'user', 'refunds?', 'complete', '2024-01-01T00:00:01.000Z', 'k1', NULL),
            ('q2', 's1', 2, 'u1', 'user', 'refunds?', 'complete', '2024-01-01T00:00:01.000Z', 'k1', NULL),
            ('a2', 's1', 3, 'u1', 'assistant', 'answer of B', 'complete', '2024-01-01T00:00:02.000Z', NULL, 'q2'),
            ('a1', 's1', 4, 'u1', 'assistant', 'answer of A', 'complete', '2024-01-01T00:00:03.000Z', NULL, 'q1'),
            ('q3', 's1', 5, 'u1', 'user', 'refunds?', 'complete', '2024-01-01T00:00:04.000Z', 'k1', NULL),
            ('q4', 's2', 1, 'u1', 'user', 'other session', 'complete', '2024-01-01T00:00:05.000Z', 'k1', NULL)`,
  ];
}

async function expectMigrated(store: SessionStore): Promise<void> {
  // Nothing deleted, order kept.
  expect((await store.listMessages('s1')).map((message) => message.id)).toEqual([
    'q1',
    'q2',
    'a2',
    'a1',
    'q3',
  ]);
  // The key names the first user message; the later ones keep their text, not the key.
  expect((await store.findMessage('s1', { requestId: 'k1' }))?.id).toBe('q1');
  expect((await store.getMessage('q2'))?.requestId).toBeUndefined();
  expect((await store.getMessage('q3'))?.requestId).toBeUndefined();
  // Both answers now reply to the kept message (newest first for findMessage).
  expect((await store.getMessage('a2'))?.replyTo).toBe('q1');
  expect((await store.findMessage('s1', { replyTo: 'q1' }))?.id).toBe('a1');
  // Another session's use of the key is untouched.
  expect((await store.findMessage('s2', { requestId: 'k1' }))?.id).toBe('q4');
  // And the key is now unique.
  const owner = (await store.getSession('s1'))!;
  await expectErrorCode(
    () =>
      store.appendMessages('s1', [
        {
          id: 'q5',
          sessionId: 's1',
          userId: owner.userId,
          role: 'user',
          content: 'refunds?',
          status: 'complete',
          createdAt: '2024-01-01T00:00:06.000Z',
          sources: [],
          confidence: null,
          timings: null,
          guard: false,
          metadata: {},
          requestId: 'k1',
        },
      ]),
    'conflict',
    'a second user message with key k1 after the migration',
  );
}

describe('schema version 7 on a SQLite file holding duplicate idempotency keys', () => {
  const directory = mkdtempSync(join(tmpdir(), 'cortexis-idempotency-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('keeps the first message per key, re-points answers, deletes nothing', async () => {
    const file = join(directory, 'store.db');
    const old = new Database(file);
    expect(migrateSqlite(old, 6)).toBe(6);
    for (const statement of seedStatements((name) => name)) old.prepare(statement).run();
    old.close();

    const stores = await createSqliteStores({ path: file });
    try {
      await expectMigrated(stores.sessionStore);
      const index = stores.database
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'idx_messages_request_id'")
        .get() as { sql: string };
      expect(index.sql).toMatch(/^CREATE UNIQUE INDEX/);
    } finally {
      stores.close();
    }
  });
});

describe.skipIf(!url)(
  url
    ? 'schema version 7 on a Postgres schema holding duplicate idempotency keys'
    : 'schema version 7 on Postgres [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]',
  () => {
    const schema = uniqueName('cortexis_test');
    const pool = url ? new pg.Pool({ connectionString: url, max: 2 }) : undefined;
    afterAll(async () => {
      await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool?.end();
    });

    it('keeps the first message per key, re-points answers, deletes nothing', async () => {
      expect(await migratePostgres(pool!, schema, 6)).toBe(6);
      for (const statement of seedStatements((name) => `"${schema}".${name}`)) {
        await pool!.query(statement);
      }
      const stores = await createPostgresStores({ pool: pool!, schema });
      await expectMigrated(stores.sessionStore);
    });
  },
);
