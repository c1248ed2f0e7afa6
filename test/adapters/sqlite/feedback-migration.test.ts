import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStores, migrateSqlite } from '../../../src/adapters/sqlite/index.js';
import { calculateFeedbackReward } from '../../../src/learning/feedback.js';
import { ulid } from '../../../src/util/ids.js';

let directory: string;
let file: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'cortexis-feedback-'));
  file = join(directory, 'store.db');
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('SQLite migration 5 (feedback rewards)', () => {
  it('adds session ids and rewards to old feedback, keeps the latest per message, drops the foreign key', async () => {
    const old = new Database(file);
    expect(migrateSqlite(old, 4)).toBe(4);
    old.exec(`
      INSERT INTO sessions (id, user_id, status, created_at, updated_at)
        VALUES ('s1', 'u1', 'active', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
      INSERT INTO messages (id, session_id, seq, user_id, role, content, status, created_at)
        VALUES ('m1', 's1', 1, 'u1', 'assistant', 'a', 'complete', '2024-01-01T00:00:01.000Z'),
               ('m2', 's1', 2, 'u1', 'assistant', 'b', 'complete', '2024-01-01T00:00:02.000Z');
      INSERT INTO feedback (id, message_id, user_id, rating, source_helpfulness, comment, marked_as_factual, corrected_content, created_at)
        VALUES ('f1', 'm1', 'u1', 'good', NULL, NULL, NULL, NULL, '2024-01-01T00:00:03.000Z'),
               ('f2', 'm1', 'u1', 'neutral', NULL, 'no', 0, 'It is 30 days.', '2024-01-01T00:00:04.000Z'),
               ('f3', 'm2', 'u1', 'good', '{"S1":1,"S2":0.2}', NULL, 1, NULL, '2024-01-01T00:00:05.000Z');
    `);
    old.close();

    const stores = await createSqliteStores({ path: file });
    try {
      const listed = await stores.learningSink.listFeedback({ sessionId: 's1' });
      expect(listed.map((item) => item.id)).toEqual(['f2', 'f3']);
      expect(listed[0]).toEqual({
        id: 'f2',
        messageId: 'm1',
        sessionId: 's1',
        userId: 'u1',
        rating: 'neutral',
        sourceHelpfulness: null,
        comment: 'no',
        markedAsFactual: false,
        correctedContent: 'It is 30 days.',
        reward: calculateFeedbackReward({
          rating: 'neutral',
          markedAsFactual: false,
          correctedContent: 'It is 30 days.',
        }),
        createdAt: '2024-01-01T00:00:04.000Z',
      });
      expect(listed[0]?.reward).toBe(-0.3);
      expect(listed[1]?.sourceHelpfulness).toEqual({ S1: 1, S2: 0.2 });
      expect(listed[1]?.markedAsFactual).toBe(true);
      expect(listed[1]?.reward).toBeCloseTo(
        calculateFeedbackReward({ rating: 'good', sourceHelpfulness: { S1: 1, S2: 0.2 } }),
        10,
      );

      expect(stores.database.pragma('foreign_key_list(feedback)')).toEqual([]);
      const indexes = (stores.database.pragma('index_list(feedback)') as Array<{ name: string }>)
        .map((index) => index.name)
        .sort();
      expect(indexes).toEqual(
        expect.arrayContaining(['idx_feedback_message_id', 'idx_feedback_session_id']),
      );
      expect(
        (stores.database.pragma('index_list(trajectory_steps)') as Array<{ name: string }>).map(
          (index) => index.name,
        ),
      ).toContain('idx_trajectory_steps_message_id');

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
      // Replacing feedback on a migrated row keeps one row per message.
      await stores.learningSink.recordFeedback({ ...feedback, id: ulid(), messageId: 'm1' });
      expect(
        (await stores.learningSink.listFeedback({ messageId: 'm1' })).map((item) => item.rating),
      ).toEqual(['good']);
    } finally {
      stores.close();
    }
  });
});
