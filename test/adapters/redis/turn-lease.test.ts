/**
 * The turn lease on Redis (`withRedisTurnLease`, issue 28 item 7), with a real Redis
 * (CORTEXIS_TEST_REDIS_URL): the session-store conformance suite's lease cases on a wrapped
 * store, and two engines — each with its own Redis client and its own connection to one SQLite
 * file whose own lease is left out — taking turns on one session: every answer right after its
 * own question.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../../src/adapters/memory/session-store.js';
import { withRedisTurnLease, type RedisScriptClient } from '../../../src/adapters/redis/index.js';
import { createSqliteStores } from '../../../src/adapters/sqlite/index.js';
import { createChatEngine } from '../../../src/engine.js';
import type { SessionStore } from '../../../src/ports/session-store.js';
import { createMockLLM, testSessionStore } from '../../../src/testing/index.js';
import { titled, uniqueName } from '../../../src/testing/shared.js';
import { handbook } from '../../fixtures/handbook.js';

const url = process.env['CORTEXIS_TEST_REDIS_URL'];
const reason = url ? undefined : 'CORTEXIS_TEST_REDIS_URL is not set';
const prefix = `${uniqueName('cortexis_test_turn')}:`;
const clients: ReturnType<typeof createClient>[] = [];

async function client(): Promise<RedisScriptClient> {
  const connected = await createClient({ url: url! }).connect();
  clients.push(connected as ReturnType<typeof createClient>);
  return connected as unknown as RedisScriptClient;
}

beforeAll(async () => {
  if (url) await client();
});
afterAll(async () => {
  for (const connected of clients) await connected.close();
});

if (url) {
  testSessionStore({
    title: 'memory session store with the Redis turn lease',
    create: async () =>
      withRedisTurnLease(createMemorySessionStore(), { client: await client(), prefix }),
  });
}

describe('two engines taking turns through the Redis lease', () => {
  it.skipIf(!url)(
    titled('on one SQLite file without its own lease', reason),
    async () => {
      const directory = mkdtempSync(join(tmpdir(), 'cortexis-redis-turns-'));
      const path = join(directory, 'chat.db');
      const files = [await createSqliteStores({ path }), await createSqliteStores({ path })];
      try {
        const engines = [];
        for (const stores of files) {
          // The SQLite store's own lease left out: only Redis orders the turns.
          const { acquireTurn: _own, ...withoutLease } = stores.sessionStore;
          const sessionStore: SessionStore = withRedisTurnLease(withoutLease, {
            client: await client(),
            prefix,
          });
          const engine = createChatEngine({
            sessionStore,
            compaction: { enabled: false },
            llm: createMockLLM({
              responses: async () => {
                for (let tick = 0; tick < 5; tick++) await new Promise((r) => setImmediate(r));
                return { text: 'Refunds are issued within 14 days [source: S1].' };
              },
            }),
          });
          await engine.ingest(handbook);
          engines.push(engine);
        }
        const userId = uniqueName('user');
        const session = await engines[0]!.createSession({ userId });
        const turns = [];
        for (let index = 0; index < 10; index++) {
          for (const engine of engines) {
            turns.push(
              engine.chat({
                sessionId: session.id,
                userId,
                message: `What is the refund policy? ${index}`,
              }),
            );
          }
        }
        await Promise.all(turns);
        const messages = await files[0]!.sessionStore.listMessages(session.id);
        expect(messages).toHaveLength(40);
        let misplaced = 0;
        for (let index = 0; index < messages.length; index += 2) {
          const [question, answer] = [messages[index]!, messages[index + 1]!];
          if (question.role !== 'user' || answer.replyTo !== question.id) misplaced++;
        }
        expect(misplaced).toBe(0);
        await Promise.all(engines.map((engine) => engine.flush()));
      } finally {
        for (const stores of files) stores.close();
        rmSync(directory, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
