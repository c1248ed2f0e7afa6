/**
 * Deleted text does not stay on disk (issue 28, item 4): the SQLite stores run with
 * `secure_delete` and checkpoint the WAL after a deletion, so after `deleteSession` or
 * `deleteUser` neither the database file nor its `-wal` file holds the deleted words — a
 * message, a comment, a correction (in the keyword index and the graph too). Read byte by
 * byte, case-insensitively; the same words are found there before the deletion.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStores, type SqliteStores } from '../../../src/adapters/sqlite/index.js';
import { createChatEngine, type ChatEngine } from '../../../src/engine.js';
import { createMockLLM } from '../../../src/testing/mock-llm.js';
import { handbook } from '../../fixtures/handbook.js';

// Words found nowhere else: one in the question, one in the comment, one in the correction.
const SAID = 'quixotrandel';
const COMMENTED = 'vorpalinchet';
const CORRECTED = 'zorblaxium';

/** How many of the secret words the database file and its WAL hold (case-insensitive). */
function wordsOnDisk(path: string): string[] {
  const bytes = [path, `${path}-wal`]
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1').toLowerCase())
    .join('\n');
  return [SAID, COMMENTED, CORRECTED].filter((word) => bytes.includes(word));
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

async function setup(): Promise<{
  engine: ChatEngine;
  stores: SqliteStores;
  path: string;
  sessionId: string;
}> {
  const directory = mkdtempSync(join(tmpdir(), 'cortexis-secure-delete-'));
  directories.push(directory);
  const path = join(directory, 'chat.db');
  const stores = await createSqliteStores({ path });
  const engine = createChatEngine({
    llm: createMockLLM({ responses: () => ({ text: 'Noted [source: S1].' }) }),
    sessionStore: stores.sessionStore,
    learningSink: stores.learningSink,
    keywordIndex: stores.keywordIndex,
    graphStore: stores.graphStore,
    retrieval: { minSimilarity: 0 },
  });
  await engine.ingest(handbook);
  const session = await engine.createSession({ userId: 'alice' });
  const reply = await engine.chat({
    sessionId: session.id,
    userId: 'alice',
    message: `My codename is ${SAID}. What is the refund policy?`,
  });
  await engine.feedback({
    messageId: reply.messageId,
    userId: 'alice',
    rating: 'bad',
    comment: `Wrong, ask ${COMMENTED}.`,
    correctedContent: `Refunds go through the ${CORRECTED} portal within 3 days.`,
    ingestCorrection: true,
  });
  await engine.flush();
  return { engine, stores, path, sessionId: session.id };
}

describe('SQLite keeps no deleted text on disk', () => {
  it('runs with secure_delete on', async () => {
    const { stores } = await setup();
    expect(stores.database.pragma('secure_delete', { simple: true })).toBe(1);
    stores.close();
  });

  it('after deleteSession', async () => {
    const { engine, stores, path, sessionId } = await setup();
    expect(wordsOnDisk(path)).toEqual([SAID, COMMENTED, CORRECTED]);
    await engine.deleteSession({ sessionId, userId: 'alice' });
    expect(wordsOnDisk(path)).toEqual([]);
    stores.close();
    expect(wordsOnDisk(path)).toEqual([]);
  });

  it('after deleteUser', async () => {
    const { engine, stores, path } = await setup();
    expect(wordsOnDisk(path)).toEqual([SAID, COMMENTED, CORRECTED]);
    const report = await engine.deleteUser({ userId: 'alice' });
    expect(report).toMatchObject({ sessions: 1, messages: 2, feedback: 1 });
    expect(wordsOnDisk(path)).toEqual([]);
    stores.close();
    expect(wordsOnDisk(path)).toEqual([]);
  });
});
