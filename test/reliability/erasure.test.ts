/**
 * Erasure (issue 28, item 4). A correction ingested with `ingestCorrection` is its author's:
 * it never reaches another user's prompt or sources unless the host publishes it, and it goes
 * with `deleteSession`. `engine.deleteUser` removes every message, summary, recall record,
 * feedback, trajectory, correction and learned-boost event of a user from every store, with a
 * report, and leaves other users' data alone — in memory, on SQLite, on Postgres (env-gated)
 * and with LanceDB as the vector store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLanceDbVectorStore } from '../../src/adapters/lancedb/index.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createPostgresStores } from '../../src/adapters/postgres/index.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { createChatEngine, type ChatEngine } from '../../src/engine.js';
import type { EngineConfig } from '../../src/config.js';
import { recallNamespace } from '../../src/pipeline/recall.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { titled, uniqueName } from '../../src/testing/shared.js';
import { handbook } from '../fixtures/handbook.js';

const CORRECTION = 'Refunds are paid through the Zorblax portal within 3 days.';
const QUESTION = 'How are refunds paid through the Zorblax portal?';
const DIMENSIONS = 384; // the hashing embedder's default
const postgresUrl = process.env['CORTEXIS_TEST_POSTGRES_URL'];

/** Stores of one run, and how to close them. */
type Stores = Pick<
  EngineConfig,
  'vectorStore' | 'sessionStore' | 'learningSink' | 'keywordIndex' | 'graphStore'
> & { readonly close?: () => Promise<void> };

/** An engine with a recording mock model on the stores, the handbook ingested. */
async function engineOn(stores: Stores, extra: EngineConfig = {}) {
  const llm = createMockLLM({ responses: () => ({ text: 'Noted [source: S1].' }) });
  const { close: _close, ...adapters } = stores;
  const engine = createChatEngine({
    llm,
    ...adapters,
    recall: { scope: 'user', minSimilarity: 0 },
    retrieval: { minSimilarity: 0 },
    ...extra,
  });
  await engine.ingest(handbook);
  return { engine, llm };
}

/** Asks `QUESTION` as `userId` in a new session; returns what reached the model and the sources. */
async function ask(
  engine: ChatEngine,
  llm: ReturnType<typeof createMockLLM>,
  userId: string,
): Promise<{ prompt: string; documents: string[]; messageId: string; sessionId: string }> {
  const before = llm.calls.length;
  const session = await engine.createSession({ userId });
  const reply = await engine.chat({ sessionId: session.id, userId, message: QUESTION });
  return {
    prompt: llm.calls
      .slice(before)
      .map((call) => JSON.stringify(call.request))
      .join('\n'),
    documents: reply.sources.map((source) => source.documentId),
    messageId: reply.messageId,
    sessionId: session.id,
  };
}

/** A correction of `userId`'s answer, ingested; returns the answer's id. */
async function correct(
  engine: ChatEngine,
  llm: ReturnType<typeof createMockLLM>,
  userId: string,
  publish = false,
): Promise<{ messageId: string; sessionId: string }> {
  const answer = await ask(engine, llm, userId);
  await engine.feedback({
    messageId: answer.messageId,
    userId,
    rating: 'bad',
    correctedContent: CORRECTION,
    ingestCorrection: true,
    ...(publish ? { publishCorrection: true } : {}),
  });
  return answer;
}

async function correctionsStayPrivate(stores: Stores): Promise<void> {
  const { engine, llm } = await engineOn(stores);
  try {
    const alice = uniqueName('alice');
    const bob = uniqueName('bob');
    const corrected = await correct(engine, llm, alice);
    const documentId = `correction:${corrected.messageId}`;

    // The author's next answer uses it; another user's never sees it.
    const own = await ask(engine, llm, alice);
    expect(own.prompt).toContain('Zorblax portal within 3 days');
    expect(own.documents).toContain(documentId);
    const other = await ask(engine, llm, bob);
    expect(other.prompt).not.toContain('within 3 days');
    expect(other.documents).not.toContain(documentId);
    expect((await engine.search(QUESTION, { k: 10 })).map((hit) => hit.documentId)).not.toContain(
      documentId,
    );
    expect(
      (await engine.search(QUESTION, { k: 10, userId: alice })).map((hit) => hit.documentId),
    ).toContain(documentId);

    // Deleting the corrected conversation deletes the correction too.
    await engine.deleteSession({ sessionId: corrected.sessionId, userId: alice });
    const after = await ask(engine, llm, alice);
    expect(after.prompt).not.toContain('within 3 days');
    expect(after.documents).not.toContain(documentId);

    // What the host publishes reaches everyone.
    const published = await correct(engine, llm, alice, true);
    const seen = await ask(engine, llm, bob);
    expect(seen.documents).toContain(`correction:${published.messageId}`);
    expect(seen.prompt).toContain('within 3 days');
  } finally {
    await engine.flush();
    await stores.close?.();
  }
}

/** Every record of `userId` in the recall namespace, read straight from the vector store. */
async function recallRecordsOf(stores: Stores, userId: string): Promise<number> {
  const probe = Array.from({ length: DIMENSIONS }, (_, index) => (index === 0 ? 1 : 0));
  return (
    await stores.vectorStore!.query(recallNamespace('default'), probe, {
      k: 1000,
      filter: { userId },
    })
  ).length;
}

async function eraseUser(stores: Stores): Promise<void> {
  const { engine, llm } = await engineOn(stores);
  const sessionStore = stores.sessionStore!;
  const learningSink = stores.learningSink!;
  try {
    const alice = uniqueName('alice');
    const bob = uniqueName('bob');
    const first = await correct(engine, llm, alice);
    const second = await ask(engine, llm, alice);
    await engine.feedback({ messageId: second.messageId, userId: alice, rating: 'good' });
    // A summary, as compaction writes it.
    const covered = await sessionStore.listMessages(second.sessionId);
    await sessionStore.appendSummary(second.sessionId, {
      ...covered[0]!,
      id: uniqueName('summary'),
      role: 'system-summary',
      content: 'Alice asked about the Zorblax portal.',
      covers: covered.map((message) => message.id),
      createdAt: new Date().toISOString(),
      sources: [],
      confidence: null,
      timings: null,
    });
    const kept = await correct(engine, llm, bob);
    await engine.flush();
    expect(await recallRecordsOf(stores, alice)).toBeGreaterThan(0);
    const bobRecall = await recallRecordsOf(stores, bob);
    expect(bobRecall).toBeGreaterThan(0);
    const trajectory = (await sessionStore.getSession(first.sessionId))!.trajectoryId!;

    const report = await engine.deleteUser({ userId: alice });
    expect(report).toMatchObject({
      userId: alice,
      sessions: 2,
      messages: 5,
      summaries: 1,
      feedback: 2,
      trajectories: 2,
      learnedBoostEvents: expect.any(Number),
    });
    expect(report.recallRecords).toBeGreaterThanOrEqual(4);
    expect(report.correctionChunks).toBeGreaterThan(0);
    expect(report.learnedBoostEvents).toBeGreaterThan(0);

    // Nothing of Alice is left in any store.
    expect((await sessionStore.listSessions({ userId: alice, limit: 10 })).sessions).toEqual([]);
    expect(await sessionStore.getMessage(first.messageId)).toBeNull();
    expect(await learningSink.getTrajectory(trajectory)).toBeNull();
    expect(await learningSink.listFeedback({ messageId: first.messageId })).toEqual([]);
    expect(await recallRecordsOf(stores, alice)).toBe(0);
    const hits = await engine.search(QUESTION, { k: 20, userId: alice });
    expect(hits.map((hit) => hit.documentId)).not.toContain(`correction:${first.messageId}`);
    // A second erasure finds nothing.
    expect(await engine.deleteUser({ userId: alice })).toEqual({
      userId: alice,
      sessions: 0,
      messages: 0,
      summaries: 0,
      recallRecords: 0,
      feedback: 0,
      trajectories: 0,
      correctionChunks: 0,
      learnedBoostEvents: 0,
    });

    // Bob keeps everything, his correction included.
    expect(await sessionStore.getSession(kept.sessionId)).not.toBeNull();
    expect(await learningSink.listFeedback({ messageId: kept.messageId })).toHaveLength(1);
    expect(await recallRecordsOf(stores, bob)).toBe(bobRecall);
    const bobHits = await engine.search(QUESTION, { k: 20, userId: bob });
    expect(bobHits.map((hit) => hit.documentId)).toContain(`correction:${kept.messageId}`);
  } finally {
    await engine.flush();
    await stores.close?.();
  }
}

/** Each scenario on each store set. */
const storeSets: Array<[string, () => Promise<Stores>, (string | undefined)?]> = [
  ['in memory (the defaults)', async () => ({ vectorStore: createMemoryVectorStore() })],
  [
    'on SQLite (sessions, learning, keyword index, graph)',
    async () => {
      const stores = await createSqliteStores({ path: ':memory:' });
      return {
        vectorStore: createMemoryVectorStore(),
        sessionStore: stores.sessionStore,
        learningSink: stores.learningSink,
        keywordIndex: stores.keywordIndex,
        graphStore: stores.graphStore,
        close: async () => stores.close(),
      };
    },
  ],
  [
    'with LanceDB (on disk) as the vector store',
    async () => {
      const directory = mkdtempSync(join(tmpdir(), 'cortexis-erasure-'));
      const vectorStore = await createLanceDbVectorStore({
        uri: directory,
        dimensions: DIMENSIONS,
      });
      return {
        vectorStore,
        close: async () => {
          await vectorStore.close();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  ],
];
storeSets.push([
  'on Postgres (sessions, learning, keyword index, graph)',
  async () => {
    const schema = uniqueName('cortexis_erasure');
    const stores = await createPostgresStores({ connectionString: postgresUrl!, schema });
    return {
      vectorStore: createMemoryVectorStore(),
      sessionStore: stores.sessionStore,
      learningSink: stores.learningSink,
      keywordIndex: stores.keywordIndex,
      graphStore: stores.graphStore,
      close: async () => {
        await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await stores.close();
      },
    };
  },
  postgresUrl ? undefined : 'CORTEXIS_TEST_POSTGRES_URL is not set',
]);

/** The in-memory session store and learning sink when a store set leaves them out. */
async function complete(make: () => Promise<Stores>): Promise<Stores> {
  const { createMemorySessionStore } = await import('../../src/adapters/memory/session-store.js');
  const { createMemoryLearningSink } = await import('../../src/adapters/memory/learning-sink.js');
  const stores = await make();
  return {
    sessionStore: createMemorySessionStore(),
    learningSink: createMemoryLearningSink(),
    ...stores,
  };
}

describe('a correction belongs to its author', () => {
  for (const [title, make, skip] of storeSets) {
    it.skipIf(skip)(
      titled(title, skip),
      async () => correctionsStayPrivate(await complete(make)),
      30_000,
    );
  }
});

describe('engine.deleteUser erases a user from every store', () => {
  for (const [title, make, skip] of storeSets) {
    it.skipIf(skip)(titled(title, skip), async () => eraseUser(await complete(make)), 30_000);
  }
});

describe('engine.deleteUser refuses a bad user id before deleting anything', () => {
  it.each([
    ['NUL', 'alice\u0000'],
    ['a lone surrogate', 'alice\uD800'],
    ['a huge id', 'a'.repeat(100_000)],
    ['an empty id', ''],
    ['a non-string', 42],
  ])('%s', async (_name, userId) => {
    const engine = createChatEngine();
    const session = await engine.createSession({ userId: 'alice' });
    await expect(engine.deleteUser({ userId } as { userId: string })).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(
      engine.deleteUser({ userId: 'alice', extra: 1 } as { userId: string }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    expect((await engine.getSession({ sessionId: session.id, userId: 'alice' })).id).toBe(
      session.id,
    );
  });
});

describe('the new inputs refuse hostile values', () => {
  it.each([
    ['NUL', 'alice\u0000'],
    ['a lone surrogate', 'alice\uDC00'],
    ['a huge id', 'a'.repeat(100_000)],
    ['a non-string', { toString: (): string => 'alice' }],
  ])('search userId with %s', async (_name, userId) => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    await expect(engine.search('refunds', { userId } as { userId: string })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it.each([
    ['a string', 'yes'],
    ['a number', 1],
    ['null', null],
  ])(
    'feedback publishCorrection as %s, before anything is stored',
    async (_name, publishCorrection) => {
      const { engine, llm } = await engineOn({ vectorStore: createMemoryVectorStore() });
      const answer = await ask(engine, llm, 'alice');
      await expect(
        engine.feedback({
          messageId: answer.messageId,
          userId: 'alice',
          rating: 'bad',
          correctedContent: CORRECTION,
          ingestCorrection: true,
          publishCorrection,
        } as never),
      ).rejects.toMatchObject({ code: 'validation_error' });
      const hits = await engine.search(QUESTION, { k: 10, userId: 'alice' });
      expect(hits.map((hit) => hit.documentId)).not.toContain(`correction:${answer.messageId}`);
    },
  );
});
