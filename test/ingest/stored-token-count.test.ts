import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { createLanceDbVectorStore } from '../../src/adapters/lancedb/index.js';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createPostgresStores, createPgVectorStore } from '../../src/adapters/postgres/index.js';
import type { SqlQueryable } from '../../src/adapters/postgres/vector-store.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { createChatEngine, tokenChunker, type Chunker } from '../../src/index.js';
import { readTokenCount, TOKEN_COUNT_KEY } from '../../src/ingest/prepare.js';
import type { KeywordIndex } from '../../src/ports/keyword-index.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';
import type { VectorStore } from '../../src/ports/vector-store.js';
import { uniqueName } from '../../src/testing/shared.js';

// Chunks' token counts stored at ingest (`tokenCount` metadata) in every store, and indexes
// written before them (no `tokenCount`: "old" records) still answering exactly alike.

const DIMENSIONS = 64;
const directory = mkdtempSync(join(tmpdir(), 'cortexis-token-count-'));
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  rmSync(directory, { recursive: true, force: true });
});

const docs = [
  {
    id: 'dock',
    title: 'Warehouse manual',
    text: 'The loading dock closes at 17:30 on Fridays. Deliveries after that wait until Monday morning at the gate.',
  },
  {
    id: 'refunds',
    title: 'Refund policy',
    text: '# Refunds\n\nA refund takes two weeks from the day the parcel arrives back at the warehouse.\n\n## Exceptions\n\nOpened software <b>cannot</b> be refunded & gift cards neither.',
  },
  {
    id: 'bikes',
    text: Array.from(
      { length: 40 },
      (_, n) => `Bike ${n} must be docked within thirty minutes of leaving station ${n % 7}.`,
    ).join(' '),
  },
];
const questions = [
  'When does the loading dock close?',
  'How long does a refund take?',
  'Can gift cards be refunded?',
  'How long may a bike be out of its dock?',
];

/** The default chunker's chunks as a chunker of the application's: no count is kept (old records). */
const oldChunker: Chunker = async (doc, context) =>
  (await tokenChunker()(doc, context)).map((chunk) => ({ ...chunk }));

interface Stores {
  readonly vectorStore: VectorStore;
  readonly keywordIndex: KeywordIndex;
}

/** Texts the engine's tokenizer counted during the turns of the last `answers` call. */
let countedInTurns = new Set<string>();

async function answers(stores: Stores, chunker?: Chunker, ingest = true) {
  const inner = await createGptTokenizer();
  const counted = new Set<string>();
  const tokenizer: Tokenizer = {
    name: inner.name,
    piecewise: inner.piecewise,
    count: (text) => {
      counted.add(text);
      return inner.count(text);
    },
    encode: (text) => inner.encode(text),
    decode: (tokens) => inner.decode(tokens),
  };
  const engine = createChatEngine({
    ...stores,
    tokenizer,
    embedder: createHashingEmbedder({ dimensions: DIMENSIONS }),
    chunking: { chunkSize: 48, chunkOverlap: 8, ...(chunker ? { chunker } : {}) },
    retrieval: { minSimilarity: 0 },
  });
  if (ingest) await engine.ingest(docs);
  counted.clear();
  countedInTurns = counted;
  const promptTokens: number[] = [];
  engine.on('metrics', (event) => {
    const detail = (event as { phase?: string; detail?: { promptTokens?: number } }).detail;
    if ((event as { phase?: string }).phase === 'generate' && detail?.promptTokens) {
      promptTokens.push(detail.promptTokens);
    }
  });
  const replies = [];
  for (const message of questions) {
    const reply = await engine.chat({ message, mode: 'query' });
    replies.push({
      text: reply.text,
      sources: reply.sources.map(
        ({
          metadata: { revision: _revision, [TOKEN_COUNT_KEY]: _count, ...metadata },
          ...source
        }) => ({
          ...source,
          metadata,
        }),
      ),
      citations: reply.citations,
    });
  }
  return { replies, promptTokens };
}

/** Every chunk record of the namespace (the keyword index's: those with a common word). */
async function records(store: VectorStore | KeywordIndex) {
  if ('query' in store) {
    const total = await store.count('default');
    return store.query('default', new Float32Array(DIMENSIONS).fill(1), { k: total });
  }
  return store.search('default', 'dock refund bike station', { k: 100 });
}

async function expectStoredCounts(
  store: VectorStore | KeywordIndex,
  stored: boolean,
): Promise<void> {
  const tokenizer = await createGptTokenizer();
  const all = await records(store);
  expect(all.length).toBeGreaterThan(3);
  let counted = 0;
  for (const { metadata } of all) {
    const count = readTokenCount(metadata, tokenizer.name);
    if (count === undefined) continue;
    counted++;
    expect(count).toBe(tokenizer.count(metadata['text'] as string));
  }
  if (stored) expect(counted).toBeGreaterThan(0);
  else expect(counted).toBe(0);
}

/** Old records and new ones in the same kind of store answer alike; the new ones hold counts. */
async function compareStores(make: () => Promise<Stores>): Promise<void> {
  const before = await make();
  const old = await answers(before, oldChunker);
  await expectStoredCounts(before.vectorStore, false);
  await expectStoredCounts(before.keywordIndex, false);
  const after = await make();
  const now = await answers(after);
  await expectStoredCounts(after.vectorStore, true);
  await expectStoredCounts(after.keywordIndex, true);
  expect(now.promptTokens.length).toBe(questions.length);
  expect(now).toEqual(old);
}

describe('stored token counts', () => {
  it('memory stores: an old snapshot loads and answers as a new one', async () => {
    const vectors = createMemoryVectorStore();
    const keywords = createMemoryKeywordIndex();
    const old = await answers({ vectorStore: vectors, keywordIndex: keywords }, oldChunker);
    const countedOld = countedInTurns;
    // The snapshots of an index written before counts were stored.
    const keywordIndex = createMemoryKeywordIndex();
    keywordIndex.restore(keywords.snapshot());
    const loaded = {
      vectorStore: createMemoryVectorStore({ snapshot: vectors.snapshot() }),
      keywordIndex,
    };
    await expectStoredCounts(loaded.vectorStore, false);
    expect(await answers(loaded, undefined, false)).toEqual(old);
    // A new index keeps the counts through its snapshot.
    const fresh = {
      vectorStore: createMemoryVectorStore(),
      keywordIndex: createMemoryKeywordIndex(),
    };
    const now = await answers(fresh);
    // The turns counted no chunk whose count was stored (and that escaping leaves alone);
    // the same chunks without counts were counted.
    const spared = (await records(fresh.vectorStore))
      .filter(({ metadata }) => readTokenCount(metadata, 'cl100k_base') !== undefined)
      .map(({ metadata }) => metadata['text'] as string)
      .filter((text) => !/[&<>\uFF1C\uFE64\uFF1E\uFE65]/.test(text) && countedOld.has(text));
    expect(spared.length).toBeGreaterThan(0);
    for (const text of spared) expect(countedInTurns.has(text)).toBe(false);
    const reloaded = createMemoryVectorStore({ snapshot: fresh.vectorStore.snapshot() });
    await expectStoredCounts(reloaded, true);
    expect(now).toEqual(old);
  });

  it('SQLite keyword index: records without counts answer as records with them', async () => {
    await compareStores(async () => {
      const stores = await createSqliteStores({ path: join(directory, `${uniqueName('db')}.db`) });
      closers.push(() => stores.close());
      return { vectorStore: createMemoryVectorStore(), keywordIndex: stores.keywordIndex };
    });
  });

  it('pgvector store (PGlite): records without counts answer as records with them', async () => {
    const db = new PGlite({ extensions: { vector } });
    closers.push(() => db.close());
    await compareStores(async () => ({
      vectorStore: await createPgVectorStore({
        queryable: db as unknown as SqlQueryable,
        dimensions: DIMENSIONS,
        table: uniqueName('chunks'),
      }),
      keywordIndex: createMemoryKeywordIndex(),
    }));
  });

  it('LanceDB store: records without counts answer as records with them', async () => {
    await compareStores(async () => {
      const store = await createLanceDbVectorStore({
        uri: join(directory, uniqueName('lance')),
        dimensions: DIMENSIONS,
      });
      closers.push(() => store.close());
      return { vectorStore: store, keywordIndex: createMemoryKeywordIndex() };
    });
  });

  const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];
  it.skipIf(!url)(
    'Postgres keyword index: records without counts answer as records with them',
    async () => {
      await compareStores(async () => {
        const schema = uniqueName('cortexis_tokens');
        const stores = await createPostgresStores({ connectionString: url!, schema });
        closers.push(async () => {
          await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await stores.close();
        });
        // The test server may have no pgvector (PGlite covers it above): the keyword index.
        return { vectorStore: createMemoryVectorStore(), keywordIndex: stores.keywordIndex };
      });
    },
  );
});
