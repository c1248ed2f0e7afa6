import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStores, type PostgresStores } from '../../../src/adapters/postgres/index.js';
import { LATEST_SCHEMA_VERSION } from '../../../src/adapters/sql/schema.js';
import { createChatEngine } from '../../../src/engine.js';
import { uniqueName } from '../../../src/testing/shared.js';
import { handbook } from '../../fixtures/handbook.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];
const title = (text: string): string =>
  url ? text : `${text} [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]`;

describe.skipIf(!url)(title('two Postgres instances on one database'), () => {
  const schema = uniqueName('cortexis_test');
  let a: PostgresStores;
  let b: PostgresStores;

  afterAll(async () => {
    await a?.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await a?.close();
    await b?.close();
  });

  it('migrate once when they start together (advisory lock)', async () => {
    [a, b] = await Promise.all([
      createPostgresStores({ connectionString: url!, schema }),
      createPostgresStores({ connectionString: url!, schema }),
    ]);
    const { rows } = await a.pool.query(
      `SELECT version FROM "${schema}".migrations ORDER BY version`,
    );
    expect(rows.map((row) => row['version'])).toEqual(
      Array.from({ length: LATEST_SCHEMA_VERSION }, (_, index) => index + 1),
    );
  });

  it('continue each other’s conversations', async () => {
    const engineA = createChatEngine({
      sessionStore: a.sessionStore,
      learningSink: a.learningSink,
    });
    const engineB = createChatEngine({
      sessionStore: b.sessionStore,
      learningSink: b.learningSink,
    });
    await Promise.all([engineA.ingest(handbook), engineB.ingest(handbook)]);
    const userId = uniqueName('user');
    const session = await engineA.createSession({ userId });
    await engineA.chat({ sessionId: session.id, userId, message: 'What is the refund policy?' });
    const reply = await engineB.chat({
      sessionId: session.id,
      userId,
      message: 'How long does shipping take?',
    });
    expect(reply.sessionId).toBe(session.id);
    await engineA.chat({ sessionId: session.id, userId, message: 'How long must passwords be?' });

    for (const engine of [engineA, engineB]) {
      const history = await engine.history({ sessionId: session.id, userId });
      expect(history.total).toBe(6);
      expect(history.messages.map((message) => `${message.role}:${message.content}`)).toEqual(
        expect.arrayContaining([
          'user:What is the refund policy?',
          'user:How long does shipping take?',
          'user:How long must passwords be?',
        ]),
      );
      expect(history.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
    }
    const listed = await engineB.listSessions({ userId });
    expect(listed.sessions.map((item) => item.id)).toEqual([session.id]);
    expect(listed.sessions[0]?.stats.messageCount).toBe(6);
  });

  it('append in one order when both write to one session at once', async () => {
    const userId = uniqueName('user');
    const session = await createChatEngine({ sessionStore: a.sessionStore }).createSession({
      userId,
    });
    const engines = [
      createChatEngine({ sessionStore: a.sessionStore }),
      createChatEngine({ sessionStore: b.sessionStore }),
    ];
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        engines[index % 2]!.chat({ sessionId: session.id, userId, message: `hello ${index}` }),
      ),
    );
    const messages = await a.sessionStore.listMessages(session.id);
    expect(messages).toHaveLength(20);
    expect(new Set(messages.map((message) => message.id)).size).toBe(20);
    expect((await b.sessionStore.getSession(session.id))?.stats.messageCount).toBe(20);
  });
});
