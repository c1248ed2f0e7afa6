/**
 * Seed 003 (per-session RAG): what a session's settings promise, and the search-results cache.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createChatEngine } from '../../src/engine.js';
import { sourceName } from '../../src/pipeline/generate.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { handbook } from '../fixtures/handbook.js';

/** Six near-identical pages: adaptive widening would take several of them. */
const pages = Array.from({ length: 6 }, (_, index) => ({
  id: `refunds-${index}`,
  text: `Refund policy ${index}: refunds are issued within ${10 + index} days of the request.`,
}));

describe('seed 003: a session topK is exact', () => {
  it('a session with topK 1 gets one source, though widening would add more', async () => {
    const engine = createChatEngine();
    await engine.ingest(pages);
    const open = await engine.createSession({ userId: 'u' });
    const wide = await engine.chat({
      sessionId: open.id,
      userId: 'u',
      message: 'How fast are refunds issued?',
    });
    expect(wide.sources.length).toBeGreaterThan(1);
    const narrow = await engine.createSession({ userId: 'u', settings: { topK: 1 } });
    const one = await engine.chat({
      sessionId: narrow.id,
      userId: 'u',
      message: 'How fast are refunds issued?',
    });
    expect(one.sources).toHaveLength(1);
    const two = await engine.chat({
      sessionId: narrow.id,
      userId: 'u',
      message: 'How fast are refunds issued?',
      topK: 2,
    });
    expect(two.sources).toHaveLength(2);
  });
});

describe('seed 003: a session threshold drops weak sources', () => {
  it('keeps only sources scoring at least the session threshold', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const open = await engine.createSession({ userId: 'u' });
    const all = await engine.chat({
      sessionId: open.id,
      userId: 'u',
      message: 'What does shipping cost and how long do refunds take?',
    });
    const scores = all.sources.map((source) => source.score);
    expect(scores.length).toBeGreaterThan(1);
    // Between the best and the worst score: some sources survive, some do not.
    const threshold = (Math.max(...scores) + Math.min(...scores)) / 2;
    const strict = await engine.createSession({ userId: 'u', settings: { threshold } });
    const kept = await engine.chat({
      sessionId: strict.id,
      userId: 'u',
      message: 'What does shipping cost and how long do refunds take?',
    });
    expect(kept.sources.length).toBeGreaterThan(0);
    expect(kept.sources.length).toBeLessThan(all.sources.length);
    expect(kept.sources.every((source) => source.score >= threshold)).toBe(true);
  });

  it('refuses a threshold outside [0, 1], naming it', async () => {
    const engine = createChatEngine();
    await expect(
      engine.createSession({ userId: 'u', settings: { threshold: 1.5 } }),
    ).rejects.toThrow(/threshold/);
  });
});

describe('seed 003: a search-results cache, emptied when the index changes', () => {
  /** A memory vector store and keyword index that count their searches. */
  function counted() {
    const vectorStore = createMemoryVectorStore();
    const keywordIndex = createMemoryKeywordIndex();
    const calls = { vector: 0, keyword: 0 };
    return {
      calls,
      vectorStore: {
        ...vectorStore,
        query: (...args: Parameters<typeof vectorStore.query>) => {
          calls.vector++;
          return vectorStore.query(...args);
        },
      },
      keywordIndex: {
        ...keywordIndex,
        search: (...args: Parameters<typeof keywordIndex.search>) => {
          calls.keyword++;
          return keywordIndex.search(...args);
        },
      },
    };
  }

  it('answers a repeated question without searching again, and reports the hit', async () => {
    const stores = counted();
    const engine = createChatEngine({
      vectorStore: stores.vectorStore,
      keywordIndex: stores.keywordIndex,
    });
    await engine.ingest(pages);
    const events: { searchCacheHit: boolean }[] = [];
    engine.on('retrieval', (event) => events.push(event));
    const first = await engine.chat({
      userId: 'u',
      message: 'How fast are refunds issued?',
      mode: 'query',
    });
    const searched = { ...stores.calls };
    const again = await engine.chat({
      userId: 'v',
      message: 'How fast are refunds issued?',
      mode: 'query',
    });
    expect(stores.calls).toEqual(searched);
    expect(again.sources.map((source) => source.chunkId)).toEqual(
      first.sources.map((source) => source.chunkId),
    );
    expect(events.map((event) => event.searchCacheHit)).toEqual([false, true]);
    // Another filter is another search.
    await engine.search('How fast are refunds issued?', { filter: { documentId: 'refunds-1' } });
    expect(stores.calls.keyword).toBe(searched.keyword + 1);
  });

  it('sees new documents at once: ingest and deletion empty it', async () => {
    const engine = createChatEngine();
    await engine.ingest(pages.slice(0, 1));
    const question = 'What does the gift card policy say?';
    const before = await engine.search(question);
    expect(before.some((hit) => hit.documentId === 'gift-cards')).toBe(false);
    await engine.ingest([
      { id: 'gift-cards', text: 'Gift card policy: gift cards are never refunded.' },
    ]);
    expect((await engine.search(question))[0]?.documentId).toBe('gift-cards');
    await engine.deleteDocuments(['gift-cards']);
    expect((await engine.search(question)).some((hit) => hit.documentId === 'gift-cards')).toBe(
      false,
    );
  });

  it('is off with maxEntries 0', async () => {
    const stores = counted();
    const engine = createChatEngine({
      vectorStore: stores.vectorStore,
      keywordIndex: stores.keywordIndex,
      retrieval: { cache: { maxEntries: 0 } },
    });
    await engine.ingest(pages);
    await engine.search('How fast are refunds issued?');
    await engine.search('How fast are refunds issued?');
    expect(stores.calls.keyword).toBe(2);
  });
});

describe('seed 003: the citation line names its sources, "Unknown" without a name', () => {
  it('names each cited source by title, else file name, else Unknown', async () => {
    const engine = createChatEngine({
      llm: createMockLLM({
        responses: 'Refunds take 14 days [source: S1] [source: S2] [source: S3].',
      }),
      citations: { includeCitations: true },
      retrieval: { minSimilarity: 0 },
    });
    await engine.ingest([
      { id: 'a', title: 'Refund policy', text: 'Refunds are issued within 14 days of a return.' },
      {
        id: 'b',
        uri: 'https://example.com/docs/refund%20rules.md?x=1',
        text: 'Refund rules: refunds take 14 days once the return arrives.',
      },
      { id: 'c', text: 'Refunds of returned items take 14 days to be issued.' },
    ]);
    const reply = await engine.chat({ message: 'How long do refunds take?', topK: 3 });
    expect(reply.sources).toHaveLength(3);
    const line = reply.text.split('\n\n').at(-1)!;
    const names = reply.sources.map((source) =>
      source.documentId === 'a'
        ? 'Refund policy'
        : source.documentId === 'b'
          ? 'refund rules.md'
          : 'Unknown',
    );
    expect(line).toBe(
      `Sources: ${reply.sources.map((source, index) => `${source.id} (${names[index]})`).join(', ')}`,
    );
    // The structured source keeps no title (null), as given.
    expect(reply.sources.find((source) => source.documentId === 'c')!.title).toBeNull();
  });

  it('a hostile title cannot shape the line', () => {
    expect(sourceName({ title: 'a\u0000b\n\n(evil) [source: S9]' })).toBe('a b evil source: S9');
    expect(sourceName({ title: '😀'.repeat(100) })).toBe('😀'.repeat(80));
    expect(sourceName({ title: '  ', uri: null })).toBe('Unknown');
    expect(sourceName({ uri: 'file:///tmp/dir/' })).toBe('dir');
    expect(sourceName({ uri: 'https://x/%E0%A4%A' })).toBe('%E0%A4%A');
  });
});
