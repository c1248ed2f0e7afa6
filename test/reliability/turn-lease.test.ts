/**
 * One turn at a time per session across engines (issue 28, item 7). Two engines share one
 * session store — one in-memory store, two connections to one SQLite file, two pools on one
 * Postgres schema (env-gated) — and send turns on one session at once. The session store's
 * turn lease orders them: the stored messages alternate strictly, each answer right after its
 * own question. Counts events, no time windows. A SQLite lease left by a crashed holder is
 * taken over once it expires.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createPostgresStores } from '../../src/adapters/postgres/index.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { createChatEngine } from '../../src/engine.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { titled, uniqueName } from '../../src/testing/shared.js';
import { handbook } from '../fixtures/handbook.js';

const TURNS_PER_ENGINE = 12;
const postgresUrl = process.env['CORTEXIS_TEST_POSTGRES_URL'];

/** An engine whose model answers after a few event-loop turns (compaction off: no summaries). */
async function engineOn(sessionStore: SessionStore) {
  const engine = createChatEngine({
    sessionStore,
    compaction: { enabled: false },
    llm: createMockLLM({
      responses: async () => {
        for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
        return { text: 'Refunds are issued within 14 days [source: S1].' };
      },
    }),
  });
  await engine.ingest(handbook);
  return engine;
}

/**
 * Sends `TURNS_PER_ENGINE` turns on one session from each engine at once; returns how many
 * answers were not stored right after their own question (0 when turns never interleave).
 */
async function interleavings(stores: [SessionStore, SessionStore]): Promise<number> {
  const [a, b] = await Promise.all([engineOn(stores[0]), engineOn(stores[1])]);
  const userId = uniqueName('user');
  const session = await a.createSession({ userId });
  const turns = [];
  for (let index = 0; index < TURNS_PER_ENGINE; index++) {
    for (const [name, engine] of [
      ['a', a],
      ['b', b],
    ] as const) {
      turns.push(
        engine.chat({
          sessionId: session.id,
          userId,
          message: `What is the refund policy? (question ${name}${index})`,
        }),
      );
    }
  }
  await Promise.all(turns);
  const messages = await stores[0].listMessages(session.id);
  expect(messages).toHaveLength(4 * TURNS_PER_ENGINE);
  let misplaced = 0;
  for (let index = 0; index < messages.length; index += 2) {
    const question = messages[index]!;
    const answer = messages[index + 1]!;
    const right =
      question.role === 'user' && answer.role === 'assistant' && answer.replyTo === question.id;
    if (!right) misplaced++;
  }
  await Promise.all([a.flush(), b.flush()]);
  return misplaced;
}

describe('two engines on one session take turns', () => {
  it('sharing one in-memory session store', async () => {
    const store = createMemorySessionStore();
    expect(await interleavings([store, store])).toBe(0);
  });

  it('on one SQLite file (two connections)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cortexis-turn-lease-'));
    const path = join(directory, 'chat.db');
    const first = await createSqliteStores({ path });
    const second = await createSqliteStores({ path });
    try {
      expect(await interleavings([first.sessionStore, second.sessionStore])).toBe(0);
    } finally {
      first.close();
      second.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);

  it.skipIf(!postgresUrl)(
    titled(
      'on one Postgres schema (two pools)',
      postgresUrl ? undefined : 'CORTEXIS_TEST_POSTGRES_URL is not set',
    ),
    async () => {
      const schema = uniqueName('cortexis_turn_lease');
      const first = await createPostgresStores({ connectionString: postgresUrl!, schema });
      const second = await createPostgresStores({ connectionString: postgresUrl!, schema });
      try {
        expect(await interleavings([first.sessionStore, second.sessionStore])).toBe(0);
      } finally {
        await first.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await first.close();
        await second.close();
      }
    },
    60_000,
  );
});

describe('a SQLite turn lease', () => {
  it('is taken over once its crashed holder let it expire, not before', async () => {
    const stores = await createSqliteStores({ path: ':memory:' });
    const sessionId = uniqueName('session');
    const insert = stores.database.prepare(
      'INSERT OR REPLACE INTO turn_leases (session_id, holder, expires_at) VALUES (?, ?, ?)',
    );
    // A live holder elsewhere: a waiter gives up on its signal, still waiting.
    insert.run(sessionId, 'live-holder', Date.now() + 3_600_000);
    const controller = new AbortController();
    const waiting = stores.sessionStore.acquireTurn!(sessionId, { signal: controller.signal });
    let polls = 0;
    while (polls++ < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'aborted' });
    // The holder crashed: its lease expired, and the next turn takes it.
    insert.run(sessionId, 'crashed-holder', Date.now() - 1);
    const lease = await stores.sessionStore.acquireTurn!(sessionId);
    const row = stores.database
      .prepare('SELECT holder FROM turn_leases WHERE session_id = ?')
      .get(sessionId) as { holder: string };
    expect(row.holder).not.toBe('crashed-holder');
    await lease.release();
    expect(
      stores.database.prepare('SELECT COUNT(*) AS n FROM turn_leases').get() as { n: number },
    ).toEqual({ n: 0 });
    stores.close();
  });
});
