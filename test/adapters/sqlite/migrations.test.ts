import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LATEST_SCHEMA_VERSION,
  createSqliteStores,
  migrateSqlite,
  schemaVersion,
} from '../../../src/adapters/sqlite/index.js';
import type { MessageRecord, SessionRecord } from '../../../src/ports/chat-records.js';
import { expectErrorCode } from '../../../src/testing/shared.js';
import { ulid } from '../../../src/util/ids.js';

let directory: string;
let file: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'cortexis-migrate-'));
  file = join(directory, 'store.db');
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

const session = (userId = 'u1'): SessionRecord => ({
  id: ulid(),
  userId,
  title: 'Refunds',
  status: 'active',
  createdAt: '2024-03-01T12:00:00.000Z',
  updatedAt: '2024-03-01T12:00:00.000Z',
  endedAt: null,
  trajectoryId: null,
  settings: { systemPrompt: 'Be brief.', temperature: 0.2 },
  stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
  metadata: {},
});

const message = (owner: SessionRecord, content: string, extra: Partial<MessageRecord> = {}) =>
  ({
    id: ulid(),
    sessionId: owner.id,
    userId: owner.userId,
    role: 'user',
    content,
    status: 'complete',
    createdAt: '2024-03-01T12:01:00.000Z',
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    ...extra,
  }) satisfies MessageRecord;

describe('SQLite migrations', () => {
  it('upgrades a file created at version 1 to the latest, keeping its data', async () => {
    const old = new Database(file);
    expect(migrateSqlite(old, 1)).toBe(1);
    // Rows as a version-1 cortexis wrote them.
    old
      .prepare(
        `INSERT INTO sessions (id, user_id, title, status, created_at, updated_at, settings, metadata, message_count)
         VALUES ('s1', 'u1', 'Old', 'active', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z', '{"model":"m"}', '{}', 2)`,
      )
      .run();
    old
      .prepare(
        `INSERT INTO messages (id, session_id, seq, user_id, role, content, status, created_at, metadata)
         VALUES ('m1', 's1', 1, 'u1', 'user', 'hello', 'complete', '2024-01-01T00:00:00.000Z', '{}'),
                ('m2', 's1', 2, 'u1', 'assistant', 'hi', 'complete', '2024-01-01T00:00:01.000Z', '{}')`,
      )
      .run();
    expect(() => old.prepare('SELECT request_id FROM messages').all()).toThrow();
    old.close();

    const stores = await createSqliteStores({ path: file });
    try {
      expect(schemaVersion(stores.database)).toBe(LATEST_SCHEMA_VERSION);
      const versions = stores.database
        .prepare('SELECT version FROM migrations ORDER BY version')
        .all();
      expect(versions).toEqual(
        Array.from({ length: LATEST_SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
      );
      const messages = await stores.sessionStore.listMessages('s1');
      expect(messages.map((item) => item.content)).toEqual(['hello', 'hi']);
      expect((await stores.sessionStore.getSession('s1'))?.settings).toEqual({ model: 'm' });

      // The new columns work on the upgraded file.
      const owner = (await stores.sessionStore.getSession('s1'))!;
      const retried = message(owner, 'again', { requestId: 'key-1' });
      await stores.sessionStore.appendMessages('s1', [retried]);
      expect(await stores.sessionStore.findMessage('s1', { requestId: 'key-1' })).toEqual(retried);
      await stores.sessionStore.appendSummary(
        's1',
        message(owner, 'summary', { role: 'system-summary', covers: ['m1', 'm2'] }),
      );
      expect(
        (await stores.sessionStore.listMessages('s1', { uncoveredOnly: true })).map(
          (item) => item.content,
        ),
      ).toEqual(['again', 'summary']);
      await stores.keywordIndex.add('ns', [{ id: 'r', text: 'refund policy', metadata: {} }]);
      expect((await stores.keywordIndex.search('ns', 'refund', { k: 1 }))[0]?.id).toBe('r');
    } finally {
      stores.close();
    }
  });

  it('applies each migration once when opened again, and refuses a newer file', async () => {
    (await createSqliteStores({ path: file })).close();
    const again = await createSqliteStores({ path: file });
    const count = again.database.prepare('SELECT COUNT(*) AS n FROM migrations').get();
    expect(count).toEqual({ n: LATEST_SCHEMA_VERSION });
    again.database
      .prepare("INSERT INTO migrations (version, name, applied_at) VALUES (?, 'future', 'x')")
      .run(LATEST_SCHEMA_VERSION + 1);
    again.close();
    await expectErrorCode(() => createSqliteStores({ path: file }), 'config_error', 'newer file');
  });

  it('with migrate: false, refuses a file that is not at the latest version', async () => {
    const old = new Database(file);
    migrateSqlite(old, 2);
    old.close();
    await expectErrorCode(
      () => createSqliteStores({ path: file, migrate: false }),
      'config_error',
      'an outdated file with migrate off',
    );
  });

  it('sets WAL, the chosen synchronous level and foreign keys', async () => {
    const stores = await createSqliteStores({ path: file, synchronous: 'normal' });
    try {
      expect(stores.database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(stores.database.pragma('synchronous', { simple: true })).toBe(1);
      expect(stores.database.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      stores.close();
    }
    const full = await createSqliteStores({ path: file });
    expect(full.database.pragma('synchronous', { simple: true })).toBe(2);
    full.close();
  });

  it('uses an injected database and leaves it open on close', async () => {
    const database = new Database(file);
    const stores = await createSqliteStores({ database });
    stores.close();
    expect(database.open).toBe(true);
    expect(schemaVersion(database)).toBe(LATEST_SCHEMA_VERSION);
    database.close();
  });
});

describe('SQLite persistence', () => {
  it('keeps sessions, messages, sources, trajectories, graph and keywords across reopening', async () => {
    const first = await createSqliteStores({ path: file });
    const owner = session();
    await first.sessionStore.createSession(owner);
    const question = message(owner, 'What is the refund policy?');
    const answer = message(owner, 'Within 14 days [source: S1].', {
      role: 'assistant',
      replyTo: question.id,
      sources: [
        {
          id: 'S1',
          chunkId: 'refunds#0',
          documentId: 'refunds',
          title: 'Refund policy',
          uri: null,
          snippet: 'Refunds are issued within 14 days.',
          score: 0.8,
          vectorScore: 0.7,
          keywordScore: null,
          fusedScore: 0.016,
          type: 'vector',
          graphBoost: 1,
          learnedBoost: 1,
          graphContext: null,
          metadata: { position: 0 },
        },
      ],
      timings: { retrievalMs: 1.25, generationMs: 3.5, totalMs: 5 },
    });
    await first.sessionStore.appendMessages(owner.id, [question, answer], {
      searchMs: 1.25,
      generationMs: 3.5,
    });
    const trajectory = await first.learningSink.beginTrajectory({
      sessionId: owner.id,
      userId: owner.userId,
      initialQuery: question.content,
      route: 'retrieval',
      startedAt: owner.createdAt,
    });
    await first.learningSink.recordStep({
      trajectoryId: trajectory,
      messageId: answer.id,
      query: question.content,
      chunkIds: ['refunds#0'],
      reward: 0.5,
      createdAt: answer.createdAt,
    });
    await first.graphStore.upsertNodes('ns', [
      { id: 'a', type: 'chunk', properties: {} },
      { id: 'b', type: 'chunk', properties: { n: 1 } },
    ]);
    await first.graphStore.upsertEdges('ns', [{ from: 'a', to: 'b', type: 'NEXT', weight: 0.5 }]);
    await first.keywordIndex.add('ns', [{ id: 'k', text: 'refund policy', metadata: { x: 1 } }]);
    first.close();

    const second = await createSqliteStores({ path: file });
    try {
      expect(await second.sessionStore.listMessages(owner.id)).toEqual([question, answer]);
      expect((await second.sessionStore.getSession(owner.id))?.stats).toEqual({
        messageCount: 2,
        totalSearchMs: 1.25,
        totalGenerationMs: 3.5,
      });
      expect((await second.learningSink.getTrajectory(trajectory))?.stepCount).toBe(1);
      expect(
        (await second.graphStore.neighbors('ns', 'a', { depth: 1 })).map((item) => item.node),
      ).toEqual([{ id: 'b', type: 'chunk', properties: { n: 1 } }]);
      expect(await second.keywordIndex.search('ns', 'refund', { k: 1 })).toMatchObject([
        { id: 'k', metadata: { x: 1 } },
      ]);
      // Deleting the session removes its messages and sources (foreign keys cascade).
      await second.sessionStore.deleteSession(owner.id);
      expect(second.database.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: 0 });
    } finally {
      second.close();
    }
  });
});
