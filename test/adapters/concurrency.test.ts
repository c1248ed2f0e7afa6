import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createPostgresStores, type PostgresStores } from '../../src/adapters/postgres/index.js';
import { createSqliteStores, type SqliteStores } from '../../src/adapters/sqlite/index.js';
import { createChatEngine } from '../../src/engine.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { uniqueName } from '../../src/testing/shared.js';
import { handbook } from '../fixtures/handbook.js';

// 200 concurrent turns over 20 sessions: the engine serialises turns per session; the store
// must keep exact counts and order under that load.
const SESSIONS = 20;
const TURNS = 10;

async function concurrentTurns(sessionStore: SessionStore): Promise<void> {
  const engine = createChatEngine({ sessionStore });
  await engine.ingest(handbook);
  const userId = uniqueName('user');
  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, () => engine.createSession({ userId })),
  );
  const turns: Promise<unknown>[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    for (const [index, session] of sessions.entries()) {
      turns.push(
        engine.chat({
          sessionId: session.id,
          userId,
          message: `session ${index} turn ${turn}: how long does shipping take?`,
        }),
      );
    }
  }
  await Promise.all(turns);

  for (const [index, session] of sessions.entries()) {
    const messages = await sessionStore.listMessages(session.id);
    expect(messages).toHaveLength(2 * TURNS);
    expect(messages.map((message) => message.role)).toEqual(
      Array.from({ length: TURNS }, () => ['user', 'assistant']).flat(),
    );
    expect(messages.filter((message) => message.role === 'user').map((m) => m.content)).toEqual(
      Array.from(
        { length: TURNS },
        (_, turn) => `session ${index} turn ${turn}: how long does shipping take?`,
      ),
    );
    expect((await sessionStore.getSession(session.id))?.stats.messageCount).toBe(2 * TURNS);
    expect(await sessionStore.countMessages(session.id)).toBe(2 * TURNS);
  }
}

const postgresUrl = process.env['CORTEXIS_TEST_POSTGRES_URL'];

describe(`${SESSIONS * TURNS} concurrent turns over ${SESSIONS} sessions`, () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('memory: exact counts and order', async () => {
    await concurrentTurns(createMemorySessionStore());
  });

  it('SQLite: exact counts and order', async () => {
    const stores: SqliteStores = await createSqliteStores({ path: ':memory:' });
    cleanups.push(() => stores.close());
    await concurrentTurns(stores.sessionStore);
  });

  it.skipIf(!postgresUrl)(
    `Postgres: exact counts and order${postgresUrl ? '' : ' [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]'}`,
    async () => {
      const schema = uniqueName('cortexis_test');
      const stores: PostgresStores = await createPostgresStores({
        connectionString: postgresUrl!,
        schema,
      });
      cleanups.push(async () => {
        await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await stores.close();
      });
      await concurrentTurns(stores.sessionStore);
    },
  );
});
