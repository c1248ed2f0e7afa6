/**
 * Deleting a conversation deletes it everywhere (issue 14, item 1): after
 * `engine.deleteSession`, the session's messages are gone from the recall store (even an
 * embedding still in flight when the delete came), its trajectories, steps and feedback are
 * gone from the learning sink, and a secret said in it never reaches the model again — on the
 * in-memory stores, SQLite, Postgres (env-gated), pgvector (PGlite) and LanceDB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector as pgvectorExtension } from '@electric-sql/pglite-pgvector';
import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { createLanceDbVectorStore } from '../../src/adapters/lancedb/index.js';
import { createMemoryLearningSink } from '../../src/adapters/memory/learning-sink.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createPostgresStores } from '../../src/adapters/postgres/index.js';
import {
  createPgVectorStore,
  type SqlQueryable,
} from '../../src/adapters/postgres/vector-store.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { createChatEngine } from '../../src/engine.js';
import { createRecall, recallNamespace } from '../../src/pipeline/recall.js';
import type { MessageRecord } from '../../src/ports/chat-records.js';
import type { EmbeddingProvider } from '../../src/ports/embedding-provider.js';
import type { LearningSink } from '../../src/ports/learning-sink.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import type { VectorStore } from '../../src/ports/vector-store.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { uniqueName } from '../../src/testing/shared.js';
import { handbook } from '../fixtures/handbook.js';

const SECRET = '4417';
const DIMENSIONS = 384; // the hashing embedder's default
const postgresUrl = process.env['CORTEXIS_TEST_POSTGRES_URL'];

/** The stores one run of the scenario uses, and how to close them. */
interface Stores {
  readonly vectorStore: VectorStore;
  readonly sessionStore: SessionStore;
  readonly learningSink: LearningSink;
  readonly close?: () => Promise<void>;
}

/** A promise and the function that resolves it. */
function gate(): { readonly opened: Promise<void>; readonly open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * The hashing embedder, except that embedding a text containing `held` waits until `release`
 * opens: an embedding in flight for as long as a test wants.
 */
function heldEmbedder(held: string, release: Promise<void>): EmbeddingProvider {
  const hashing = createHashingEmbedder();
  return {
    ...hashing,
    async embed(texts, options) {
      if (texts.some((text) => text.includes(held))) await release;
      return hashing.embed(texts, options);
    },
  };
}

/** Every recall record of a session, read straight from the vector store. */
async function recallRecordsOf(vectorStore: VectorStore, sessionId: string): Promise<number> {
  const matches = await vectorStore.query(
    recallNamespace('default'),
    Array.from({ length: DIMENSIONS }, (_, index) => (index === 0 ? 1 : 0)),
    { k: 1_000, filter: { sessionId } },
  );
  return matches.length;
}

/**
 * The scenario: "My refund PIN is 4417" in conversation A, A deleted (while the
 * embedding of the answer is still in flight), then conversation B with user-scope recall
 * asks about the PIN.
 */
async function deleteEverywhere(stores: Stores): Promise<void> {
  const release = gate();
  const llm = createMockLLM({
    responses: [
      'Noted, I will keep it in mind [source: S1].',
      'Refunds take 14 days [source: S1].',
    ],
  });
  const engine = createChatEngine({
    llm,
    embedder: heldEmbedder('Noted', release.opened),
    vectorStore: stores.vectorStore,
    sessionStore: stores.sessionStore,
    learningSink: stores.learningSink,
    recall: { scope: 'user', minSimilarity: 0 },
    retrieval: { minSimilarity: 0 },
  });
  try {
    await engine.ingest(handbook);
    const userId = uniqueName('user');
    const a = await engine.createSession({ userId });
    const reply = await engine.chat({
      sessionId: a.id,
      userId,
      message: `My refund PIN is ${SECRET}. What is the refund policy?`,
    });
    await engine.feedback({ messageId: reply.messageId, userId, rating: 'good' });
    // Wait until the question is recallable; the answer's embedding stays in flight.
    for (let tries = 0; (await recallRecordsOf(stores.vectorStore, a.id)) === 0; tries++) {
      expect(tries).toBeLessThan(500);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const trajectoryId = (await stores.sessionStore.getSession(a.id))?.trajectoryId;
    expect(trajectoryId).toEqual(expect.any(String));
    expect(await stores.learningSink.listSteps(trajectoryId!)).toHaveLength(1);
    expect(await stores.learningSink.listFeedback({ sessionId: a.id })).toHaveLength(1);

    const deleted = engine.deleteSession({ sessionId: a.id, userId });
    setTimeout(release.open, 20);
    await deleted;
    await engine.flush();

    expect(await stores.sessionStore.getSession(a.id)).toBeNull();
    expect(await recallRecordsOf(stores.vectorStore, a.id)).toBe(0);
    expect(await stores.learningSink.getTrajectory(trajectoryId!)).toBeNull();
    expect(await stores.learningSink.listSteps(trajectoryId!)).toEqual([]);
    expect(await stores.learningSink.listFeedback({ sessionId: a.id })).toEqual([]);
    expect(await stores.learningSink.listFeedback({ messageId: reply.messageId })).toEqual([]);

    const callsBefore = llm.calls.length;
    const b = await engine.createSession({ userId });
    await engine.chat({ sessionId: b.id, userId, message: 'What was my refund PIN again?' });
    const prompts = llm.calls.slice(callsBefore).map((call) => JSON.stringify(call.request));
    expect(prompts.length).toBeGreaterThan(0);
    for (const prompt of prompts) expect(prompt).not.toContain(SECRET);
    // Recall still works for what was not deleted: B's own question is recallable now.
    await engine.flush();
    expect(await recallRecordsOf(stores.vectorStore, b.id)).toBeGreaterThan(0);
  } finally {
    release.open();
    await engine.flush();
    await stores.close?.();
  }
}

describe('deleting a conversation deletes it everywhere', () => {
  it('in memory (the defaults)', async () => {
    await deleteEverywhere({
      vectorStore: createMemoryVectorStore(),
      sessionStore: createMemorySessionStore(),
      learningSink: createMemoryLearningSink(),
    });
  });

  it('on SQLite (sessions and learning)', async () => {
    const stores = await createSqliteStores({ path: ':memory:' });
    await deleteEverywhere({
      vectorStore: createMemoryVectorStore(),
      sessionStore: stores.sessionStore,
      learningSink: stores.learningSink,
      close: async () => stores.close(),
    });
  });

  describe.skipIf(!postgresUrl)(
    postgresUrl ? 'on Postgres' : 'on Postgres [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]',
    () => {
      it('sessions and learning', async () => {
        const schema = uniqueName('cortexis_deletion');
        const stores = await createPostgresStores({ connectionString: postgresUrl!, schema });
        await deleteEverywhere({
          vectorStore: createMemoryVectorStore(),
          sessionStore: stores.sessionStore,
          learningSink: stores.learningSink,
          close: async () => {
            await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
            await stores.close();
          },
        });
      });
    },
  );

  it('with pgvector (PGlite) as the recall store', async () => {
    const db = new PGlite({ extensions: { vector: pgvectorExtension } });
    await db.waitReady;
    const vectorStore = await createPgVectorStore({
      queryable: db as unknown as SqlQueryable,
      dimensions: DIMENSIONS,
      table: 'deletion',
    });
    await deleteEverywhere({
      vectorStore,
      sessionStore: createMemorySessionStore(),
      learningSink: createMemoryLearningSink(),
      close: () => db.close(),
    });
  }, 30_000);

  it('with LanceDB (on disk) as the recall store', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cortexis-deletion-'));
    const vectorStore = await createLanceDbVectorStore({
      uri: directory,
      dimensions: DIMENSIONS,
    });
    await deleteEverywhere({
      vectorStore,
      sessionStore: createMemorySessionStore(),
      learningSink: createMemoryLearningSink(),
      close: async () => {
        await vectorStore.close();
        rmSync(directory, { recursive: true, force: true });
      },
    });
  }, 30_000);
});

describe('a delete that fails part way', () => {
  it('rejects and keeps the session, so that deleting again finishes the job', async () => {
    const inner = createMemoryLearningSink();
    let failing = true;
    const learningSink: LearningSink = {
      ...inner,
      deleteSession: (sessionId, options) =>
        failing
          ? Promise.reject(new Error('learning store down'))
          : inner.deleteSession(sessionId, options),
    };
    const sessionStore = createMemorySessionStore();
    const engine = createChatEngine({
      llm: createMockLLM({ responses: 'Noted [source: S1].' }),
      sessionStore,
      learningSink,
      retrieval: { minSimilarity: 0 },
    });
    await engine.ingest(handbook);
    const session = await engine.createSession({ userId: 'u1' });
    await engine.chat({ sessionId: session.id, userId: 'u1', message: `My PIN is ${SECRET}` });
    const trajectoryId = (await sessionStore.getSession(session.id))!.trajectoryId!;
    await expect(engine.deleteSession({ sessionId: session.id, userId: 'u1' })).rejects.toThrow(
      'learning store down',
    );
    expect(await sessionStore.getSession(session.id)).not.toBeNull();
    failing = false;
    await engine.deleteSession({ sessionId: session.id, userId: 'u1' });
    expect(await sessionStore.getSession(session.id)).toBeNull();
    expect(await inner.getTrajectory(trajectoryId)).toBeNull();
  });
});

describe('recall.forget and indexing in flight', () => {
  const message = (sessionId: string, id: string, content: string): MessageRecord => ({
    id,
    sessionId,
    userId: 'alice',
    role: 'user',
    content,
    status: 'complete',
    createdAt: '2025-01-01T00:00:00.000Z',
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
  });

  it('drops a message of the session handed to index while the delete runs', async () => {
    const inner = createMemoryVectorStore();
    const deleting = gate();
    const deleteCalled = gate();
    // A store whose delete takes until the test lets it finish.
    const vectorStore: VectorStore = {
      ...inner,
      async delete(namespace, target, options) {
        deleteCalled.open();
        await deleting.opened;
        return inner.delete(namespace, target, options);
      },
    };
    const recall = createRecall({
      vectorStore,
      embedder: createHashingEmbedder(),
      namespace: 'ns',
    });
    recall.index([message('s1', 'm1', `My refund PIN is ${SECRET}`)]);
    await recall.pending();
    const forgotten = recall.forget('s1');
    await deleteCalled.opened;
    recall.index([message('s1', 'm2', `Again: my PIN is ${SECRET}`)]);
    deleting.open();
    const removed = await forgotten;
    await recall.pending();
    expect(await inner.count(recallNamespace('ns'))).toBe(0);
    expect(removed).toBe(1);
  });

  it("waits for the session's own indexing only, not for another session's", async () => {
    const vectorStore = createMemoryVectorStore();
    const slow = gate();
    const recall = createRecall({
      vectorStore,
      embedder: heldEmbedder('slow', slow.opened),
      namespace: 'ns',
    });
    recall.index([message('s1', 'm1', `My refund PIN is ${SECRET}`)]);
    while ((await vectorStore.count(recallNamespace('ns'))) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    recall.index([message('s2', 'm2', 'a slow message of another session')]);
    // s2's embedding is still held when s1 is forgotten: forget does not wait for it.
    expect(await recall.forget('s1')).toBe(1);
    expect(await vectorStore.count(recallNamespace('ns'))).toBe(0);
    slow.open();
    await recall.pending();
    expect(await vectorStore.count(recallNamespace('ns'))).toBe(1);
  });

  it('rejects when the store fails, so that a delete is not reported done', async () => {
    const inner = createMemoryVectorStore();
    const vectorStore: VectorStore = {
      ...inner,
      delete: () => Promise.reject(new Error('store down')),
    };
    const recall = createRecall({
      vectorStore,
      embedder: createHashingEmbedder(),
      namespace: 'ns',
    });
    await expect(recall.forget('s1')).rejects.toThrow('store down');
  });
});

describe('caches keyed by raw text', () => {
  it('an explicit delete empties the query-embedding cache, so its text is not kept', async () => {
    const hashing = createHashingEmbedder();
    const embedded: string[] = [];
    const embedder: EmbeddingProvider = {
      ...hashing,
      async embed(texts, options) {
        embedded.push(...texts);
        return hashing.embed(texts, options);
      },
    };
    const engine = createChatEngine({ embedder, recall: { enabled: false } });
    await engine.ingest(handbook);
    const userId = uniqueName('user');
    const question = `My refund PIN is ${SECRET}. What is the refund policy?`;
    const a = await engine.createSession({ userId });
    await engine.chat({ sessionId: a.id, userId, message: question });
    const b = await engine.createSession({ userId });
    // Asked again while A exists: served from the cache, not embedded again.
    let before = embedded.filter((text) => text === question).length;
    await engine.chat({ sessionId: b.id, userId, message: question });
    expect(embedded.filter((text) => text === question).length).toBe(before);

    await engine.deleteSession({ sessionId: a.id, userId });
    before = embedded.filter((text) => text === question).length;
    await engine.chat({ sessionId: b.id, userId, message: question });
    // The cache no longer held the deleted conversation's text: it had to be embedded anew.
    expect(embedded.filter((text) => text === question).length).toBe(before + 1);
    await engine.flush();
  });
});
