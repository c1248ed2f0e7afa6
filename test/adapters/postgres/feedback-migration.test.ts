import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStores, migratePostgres } from '../../../src/adapters/postgres/index.js';
import { calculateFeedbackReward } from '../../../src/learning/feedback.js';
import { uniqueName } from '../../../src/testing/shared.js';
import { ulid } from '../../../src/util/ids.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];
const title = (text: string): string =>
  url ? text : `${text} [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]`;

describe.skipIf(!url)(title('Postgres migration 5 (feedback rewards)'), () => {
  const schema = uniqueName('cortexis_test');
  const pool = url ? new pg.Pool({ connectionString: url, max: 2 }) : undefined;

  afterAll(async () => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  it('adds session ids and rewards to old feedback, keeps the latest per message, drops the foreign key', async () => {
    expect(await migratePostgres(pool!, schema, 4)).toBe(4);
    const s = `"${schema}"`;
    await pool!.query(
      `INSERT INTO ${s}.sessions (id, user_id, status, created_at, updated_at)
       VALUES ('s1', 'u1', 'active', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
    );
    await pool!.query(
      `INSERT INTO ${s}.messages (id, session_id, seq, user_id, role, content, status, created_at)
       VALUES ('m1', 's1', 1, 'u1', 'assistant', 'a', 'complete', '2024-01-01T00:00:01.000Z'),
              ('m2', 's1', 2, 'u1', 'assistant', 'b', 'complete', '2024-01-01T00:00:02.000Z')`,
    );
    await pool!.query(
      `INSERT INTO ${s}.feedback (id, message_id, user_id, rating, source_helpfulness, comment, marked_as_factual, corrected_content, created_at)
       VALUES ('f1', 'm1', 'u1', 'good', NULL, NULL, NULL, NULL, '2024-01-01T00:00:03.000Z'),
              ('f2', 'm1', 'u1', 'neutral', NULL, 'no', 0, 'It is 30 days.', '2024-01-01T00:00:04.000Z'),
              ('f3', 'm2', 'u1', 'good', '{"S1":1,"S2":0.2}', NULL, 1, NULL, '2024-01-01T00:00:05.000Z')`,
    );

    const stores = await createPostgresStores({ pool: pool!, schema });
    const listed = await stores.learningSink.listFeedback({ sessionId: 's1' });
    expect(listed.map((item) => item.id)).toEqual(['f2', 'f3']);
    expect(listed[0]).toMatchObject({
      messageId: 'm1',
      sessionId: 's1',
      sourceHelpfulness: null,
      markedAsFactual: false,
      correctedContent: 'It is 30 days.',
      reward: -0.3,
    });
    expect(listed[1]?.sourceHelpfulness).toEqual({ S1: 1, S2: 0.2 });
    expect(listed[1]?.reward).toBeCloseTo(
      calculateFeedbackReward({ rating: 'good', sourceHelpfulness: { S1: 1, S2: 0.2 } }),
      10,
    );

    const { rows: keys } = await pool!.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = '${s}.feedback'::regclass AND contype = 'f'`,
    );
    expect(keys).toEqual([]);

    // Feedback on a message the session store never saw is stored (no foreign key).
    const messageId = ulid();
    const feedback = {
      id: ulid(),
      messageId,
      sessionId: 's2',
      userId: 'u1',
      rating: 'good',
      sourceHelpfulness: null,
      comment: null,
      markedAsFactual: null,
      correctedContent: null,
      reward: 1,
      createdAt: '2024-01-02T00:00:00.000Z',
    } as const;
    await stores.learningSink.recordFeedback(feedback);
    expect(await stores.learningSink.listFeedback({ messageId })).toEqual([feedback]);
    await stores.learningSink.recordFeedback({ ...feedback, id: ulid(), messageId: 'm1' });
    expect(
      (await stores.learningSink.listFeedback({ messageId: 'm1' })).map((item) => item.rating),
    ).toEqual(['good']);
    await stores.close();
  });
});
