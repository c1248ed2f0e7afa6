import { afterAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  createChatEngine,
  createMemoryGraphStore,
  createMemoryKeywordIndex,
  createMemoryVectorStore,
  type EmbeddingProvider,
  type GraphStore,
  type IngestProgress,
  type KeywordIndex,
  type VectorStore,
} from 'cortexis';
import {
  IngestPool,
  ingestConcurrencyFor,
  sharedIngestPool,
} from '../../src/engine/ingest-pool.js';
import { ingestDocuments, type GroupPreparer } from '../../src/ingest/ingest.js';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { tokenizeForIndex } from '../../src/query/bm25.js';

const WORDS = (
  'refund shipping invoice bicycle battery helmet station dock unlock subscription member ' +
  'route rider repair brake chain tyre pedal weather winter summer night weekend fare ' +
  'discount student annual monthly card phone app support ticket lost found damage'
).split(' ');

/** `count` documents of varied length (one to several chunks), deterministic. */
function corpus(count: number) {
  return Array.from({ length: count }, (_, index) => {
    const sentences = Array.from({ length: 3 + ((index * 7) % 60) }, (_, at) => {
      const words = Array.from({ length: 6 + ((index + at) % 9) }, (_, w) => {
        return WORDS[(index * 13 + at * 5 + w * 3) % WORDS.length];
      });
      return `${words.join(' ')} number ${index}-${at}.`;
    });
    return {
      id: `doc-${index}`,
      ...(index % 3 === 0 ? { title: `Guide ${index}` } : {}),
      text: index % 5 === 0 ? `# Part ${index}\n\n${sentences.join(' ')}` : sentences.join(' '),
      metadata: { group: index % 4 },
    };
  });
}

/** A memory vector store and keyword index that record what they are given. */
function recording() {
  const vectors = createMemoryVectorStore();
  const keywords = createMemoryKeywordIndex();
  const written: { id: string; vector: number[]; metadata: Record<string, unknown> }[] = [];
  const indexed: { id: string; text: string }[] = [];
  const vectorStore: VectorStore = Object.assign(Object.create(vectors) as VectorStore, {
    upsert: (namespace: string, records: Parameters<VectorStore['upsert']>[1]) => {
      for (const record of records) {
        const { revision: _revision, ...metadata } = record.metadata;
        written.push({ id: record.id, vector: [...record.vector], metadata });
      }
      return vectors.upsert(namespace, records);
    },
  });
  const keywordIndex: KeywordIndex = Object.assign(Object.create(keywords) as KeywordIndex, {
    add: (namespace: string, records: Parameters<KeywordIndex['add']>[1]) => {
      for (const record of records) indexed.push({ id: record.id, text: record.text });
      return keywords.add(namespace, records);
    },
  });
  const graph = createMemoryGraphStore();
  const graphWrites: unknown[] = [];
  const graphStore: GraphStore = Object.assign(Object.create(graph) as GraphStore, {
    upsertNodes: (namespace: string, nodes: Parameters<GraphStore['upsertNodes']>[1]) => {
      graphWrites.push(['nodes', nodes]);
      return graph.upsertNodes(namespace, nodes);
    },
    upsertEdges: (namespace: string, edges: Parameters<GraphStore['upsertEdges']>[1]) => {
      graphWrites.push(['edges', edges]);
      return graph.upsertEdges(namespace, edges);
    },
  });
  return { vectorStore, keywordIndex, graphStore, written, indexed, graphWrites };
}

async function ingestWith(docs: unknown[], concurrency: number, embedder?: EmbeddingProvider) {
  const stores = recording();
  const engine = createChatEngine({
    vectorStore: stores.vectorStore,
    keywordIndex: stores.keywordIndex,
    graphStore: stores.graphStore,
    ...(embedder === undefined ? {} : { embedder }),
  });
  const progress: IngestProgress[] = [];
  const result = await engine.ingest(docs as never, {
    concurrency,
    partial: true,
    onProgress: (event) => progress.push(event),
  });
  const hits = await engine.search('battery repair station winter', { k: 5 });
  return { ...stores, result, progress, hits: hits.map((hit) => [hit.id, hit.score]) };
}

afterAll(() => sharedIngestPool().close());

describe('ingestion on worker threads', { timeout: 120_000 }, () => {
  it('writes exactly what the calling thread writes, and the workers did the work', async () => {
    const docs: unknown[] = corpus(700);
    docs.splice(300, 0, { id: 'bad', text: 'late \u0000 nul' }, 'not a document');
    const answered = sharedIngestPool().answered;
    const parallel = await ingestWith(docs, 2);
    expect(sharedIngestPool().answered - answered).toBe(3);
    const inline = await ingestWith(docs, 1);
    expect(sharedIngestPool().answered - answered).toBe(3);
    expect(parallel.written.length).toBeGreaterThan(700);
    expect(parallel.written).toEqual(inline.written);
    expect(parallel.indexed).toEqual(inline.indexed);
    expect(parallel.graphWrites.length).toBeGreaterThan(0);
    expect(parallel.graphWrites).toEqual(inline.graphWrites);
    expect(parallel.hits).toEqual(inline.hits);
    expect(parallel.result.rejected.map((item) => item.index)).toEqual([300, 301]);
    expect({ ...parallel.result, durationMs: 0 }).toEqual({ ...inline.result, durationMs: 0 });
    // One progress event per group of 256 documents, the same either way.
    expect(parallel.progress).toEqual(inline.progress);
    expect(parallel.progress.map((event) => event.documentsDone)).toEqual([256, 512, 700]);
  });

  it("computes the default keyword index's terms in the workers, as the index would", async () => {
    const seen: { text: string; terms: readonly string[] | undefined }[] = [];
    const keywords = createMemoryKeywordIndex();
    const keywordIndex: KeywordIndex = Object.assign(Object.create(keywords) as KeywordIndex, {
      add: (namespace: string, records: Parameters<KeywordIndex['add']>[1]) => {
        for (const record of records) seen.push({ text: record.text, terms: record.terms });
        return keywords.add(namespace, records);
      },
    });
    const deps = {
      vectorStore: createMemoryVectorStore(),
      keywordIndex,
      embedder: createHashingEmbedder(),
      tokenizer: await createGptTokenizer(),
    };
    await ingestDocuments(deps, corpus(600), {
      namespace: 'n',
      chunkSize: 512,
      chunkOverlap: 64,
      maxDocumentLength: 1e6,
      preparer: sharedIngestPool().preparer(2),
      keywordLanguage: 'auto',
    });
    expect(seen.length).toBeGreaterThan(600);
    // The index's own terms, each term's occurrences together (in order of first occurrence):
    // the index posts a run of one term with one lookup.
    const grouped = (terms: readonly string[]) => {
      const runs = new Map<string, string[]>();
      for (const term of terms) runs.set(term, [...(runs.get(term) ?? []), term]);
      return [...runs.values()].flat();
    };
    let repeated = 0;
    for (const { text, terms } of seen) {
      const own = tokenizeForIndex(text);
      expect(terms).toEqual(grouped(own));
      if (new Set(own).size < own.length) repeated++;
    }
    expect(repeated).toBeGreaterThan(0);
  });

  it.each([['auto'], ['de']] as const)(
    'answers searches alike with the default stores, on any thread count (language %s)',
    async (language) => {
      const answers = async (concurrency: number) => {
        const engine = createChatEngine({ text: { language } });
        await engine.ingest(corpus(600), { concurrency });
        const hits = await Promise.all(
          ['battery repair', 'student annual fare discount', 'lost card support ticket'].map(
            (query) => engine.search(query, { k: 10 }),
          ),
        );
        return hits.map((list) => list.map((hit) => [hit.id, hit.score]));
      };
      const answered = sharedIngestPool().answered;
      const parallel = await answers(2);
      expect(sharedIngestPool().answered - answered).toBe(3);
      expect(parallel.flat().length).toBeGreaterThan(0);
      expect(parallel).toEqual(await answers(1));
    },
  );

  it("embeds in the workers with a host's createHashingEmbedder, the same vectors", async () => {
    const docs = corpus(700);
    const settings = { dimensions: 256, charWeight: 2, bigramWeight: 0.5, maxNgram: 4 };
    const answered = sharedIngestPool().answered;
    const parallel = await ingestWith(docs, 2, createHashingEmbedder(settings));
    expect(sharedIngestPool().answered - answered).toBe(3);
    const inline = await ingestWith(docs, 1, createHashingEmbedder(settings));
    expect(sharedIngestPool().answered - answered).toBe(3);
    expect(parallel.written.length).toBeGreaterThan(700);
    expect(parallel.written[0]!.vector).toHaveLength(256);
    expect(parallel.written).toEqual(inline.written);
    expect(parallel.indexed).toEqual(inline.indexed);
    expect(parallel.graphWrites).toEqual(inline.graphWrites);
    expect(parallel.hits).toEqual(inline.hits);
    // The default embedder's vectors differ: the workers built the host's settings.
    const defaults = await ingestWith(docs, 2);
    expect(defaults.written[0]!.vector).toHaveLength(384);
  });

  it("keeps any other embedder on the calling thread, a copy of a hashing one's too", async () => {
    const hashing = createHashingEmbedder({ dimensions: 256 });
    const replaced = createHashingEmbedder({ dimensions: 256 });
    const calls: number[] = [];
    const embed = replaced.embed.bind(replaced);
    replaced.embed = (texts, options) => (calls.push(texts.length), embed(texts, options));
    const answered = sharedIngestPool().answered;
    const copy = await ingestWith(corpus(600), 2, { ...hashing });
    const wrapped = await ingestWith(corpus(600), 2, replaced);
    expect(sharedIngestPool().answered).toBe(answered);
    expect(calls.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(
      wrapped.written.length,
    );
    const workers = await ingestWith(corpus(600), 2, createHashingEmbedder({ dimensions: 256 }));
    expect(sharedIngestPool().answered - answered).toBe(3);
    expect(copy.written).toEqual(workers.written);
    expect(wrapped.written).toEqual(workers.written);
  });

  it('uses workers by default from three cores on, and on two for large batches only', () => {
    const small = [1, 2, 3, 4, 8].map((cores) => ingestConcurrencyFor(cores, 5183));
    expect(small).toEqual([1, 1, 3, 4, 8]);
    const large = [1, 2, 3, 8].map((cores) => ingestConcurrencyFor(cores, 10_000));
    expect(large).toEqual([1, 2, 3, 8]);
  });

  it('prepares a single group on the calling thread', async () => {
    const answered = sharedIngestPool().answered;
    const { result } = await ingestWith(corpus(40), 2);
    expect(result.documents).toBe(40);
    expect(sharedIngestPool().answered).toBe(answered);
  });

  it('refuses a bad concurrency with a ValidationError naming it, before storing anything', async () => {
    const engine = createChatEngine();
    for (const concurrency of [0, -1, 1.5, 257, Number.NaN, '2', null]) {
      await expect(
        engine.ingest(corpus(3), { concurrency: concurrency as never }),
      ).rejects.toMatchObject({
        name: 'ValidationError',
        message: expect.stringMatching(/concurrency/),
      });
    }
    expect(await engine.search('number', { k: 5 })).toEqual([]);
  });

  it('keeps the groups done when aborted, and stops asking the workers', async () => {
    const controller = new AbortController();
    const engine = createChatEngine();
    const events: number[] = [];
    await expect(
      engine.ingest(corpus(1500), {
        concurrency: 2,
        signal: controller.signal,
        onProgress: (event) => {
          events.push(event.documentsDone);
          if (event.documentsDone === 512) controller.abort();
        },
      }),
    ).rejects.toThrow(AbortError);
    expect(events).toEqual([256, 512]);
    const hits = await engine.search('battery repair station', { k: 200 });
    const documents = new Set(hits.map((hit) => Number(hit.documentId.slice(4))));
    expect(documents.size).toBeGreaterThan(0);
    expect(Math.max(...documents)).toBeLessThan(512);
  });
});

describe('a preparer that fails', { timeout: 120_000 }, () => {
  const deps = async () => ({
    vectorStore: createMemoryVectorStore(),
    keywordIndex: createMemoryKeywordIndex(),
    embedder: createHashingEmbedder(),
    tokenizer: await createGptTokenizer(),
  });
  const settings = { namespace: 'n', chunkSize: 512, chunkOverlap: 64, maxDocumentLength: 1e6 };

  it('a crashed worker: its group is prepared on the calling thread, the same', async () => {
    const pool = new IngestPool({
      url: new URL('../fixtures/crashing-ingest-worker.ts', import.meta.url),
    });
    try {
      const base = await deps();
      const result = await ingestDocuments(base, corpus(600), {
        ...settings,
        preparer: pool.preparer(2),
      });
      expect(pool.failed).toBe(3);
      expect(pool.answered).toBe(0);
      const inline = await ingestDocuments(await deps(), corpus(600), settings);
      expect(result.chunks).toBe(inline.chunks);
      expect(await base.vectorStore.count('n')).toBe(inline.chunks);
    } finally {
      await pool.close();
    }
  });

  it('a worker that never gets ready: the calling thread prepares every group', async () => {
    const pool = new IngestPool({
      url: new URL('../fixtures/silent-ingest-worker.ts', import.meta.url),
      startTimeoutMs: 3000,
    });
    try {
      const base = await deps();
      const result = await ingestDocuments(base, corpus(600), {
        ...settings,
        preparer: pool.preparer(2),
      });
      expect(pool.answered).toBe(0);
      expect(pool.failed).toBe(3);
      expect(await base.vectorStore.count('n')).toBe(result.chunks);
    } finally {
      await pool.close();
    }
  });

  it("throws the calling thread's error, with nothing half-indexed", async () => {
    const failing: GroupPreparer = {
      concurrency: 2,
      prepare: () => Promise.reject(new Error('worker failed')),
    };
    const base = await deps();
    let counted = 0;
    // The tokenizer fails in the third group; the workers' failure is not what is thrown.
    const check = (text: string) => {
      if (text.includes(' 600-')) throw new RangeError('cannot count document 600');
      counted += 1;
    };
    const tokenizer = {
      name: base.tokenizer.name,
      count: (text: string) => (check(text), base.tokenizer.count(text)),
      encode: (text: string) => (check(text), base.tokenizer.encode(text)),
      decode: (tokens: readonly number[]) => base.tokenizer.decode(tokens),
    };
    await expect(
      ingestDocuments({ ...base, tokenizer }, corpus(700), { ...settings, preparer: failing }),
    ).rejects.toThrow(/cannot count document 600/);
    expect(counted).toBeGreaterThan(0);
    expect(await base.vectorStore.count('n')).toBe(0);
    expect(await base.keywordIndex.count?.('n')).not.toBeGreaterThan(0);
  });
});
