import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createEstimateTokenizer } from '../../src/adapters/tokenizer/estimate.js';
import { ingestDocuments } from '../../src/ingest/ingest.js';
import type { VectorStore } from '../../src/ports/vector-store.js';

const settings = { namespace: 'n', chunkSize: 16, chunkOverlap: 0, maxDocumentLength: 1e6 };

/** A memory vector store that counts its deletes. */
function countingStore(): { store: VectorStore; deletes: () => number } {
  const inner = createMemoryVectorStore();
  let deletes = 0;
  const store: VectorStore = Object.assign(Object.create(inner) as VectorStore, {
    delete: (...args: Parameters<VectorStore['delete']>) => {
      deletes++;
      return inner.delete(...args);
    },
  });
  return { store, deletes: () => deletes };
}

const sentence = (n: number) => `Sentence ${n} says the refund of order ${n} takes two weeks.`;
const long = (sentences: number) =>
  Array.from({ length: sentences }, (_, n) => sentence(n)).join(' ');

describe('stale chunks of re-ingested documents', () => {
  it('are removed from both stores; documents new to the store cost no vector store search', async () => {
    const { store, deletes } = countingStore();
    const deps = {
      vectorStore: store,
      keywordIndex: createMemoryKeywordIndex(),
      embedder: createHashingEmbedder(),
      tokenizer: createEstimateTokenizer(),
    };
    const first = await ingestDocuments(deps, [{ id: 'a', text: long(12) }], settings);
    expect(first.chunks).toBeGreaterThan(3);
    // Nothing of 'a' was stored before: no stale chunk to look for in the vector store.
    expect(deletes()).toBe(0);
    const again = await ingestDocuments(deps, [{ id: 'a', text: long(2) }], settings);
    expect(deletes()).toBe(1);
    expect(again.removedChunks).toBe(first.chunks - again.chunks);
    expect(await store.count('n')).toBe(again.chunks);
    expect(await deps.keywordIndex.count('n')).toBe(again.chunks);
    // A document cut to no chunk at all still loses its old ones.
    const empty = await ingestDocuments(deps, [{ id: 'a', text: long(2) }], {
      ...settings,
      chunker: () => [],
    });
    expect(empty.chunks).toBe(0);
    expect(await store.count('n')).toBe(0);
    expect(await deps.keywordIndex.count('n')).toBe(0);
  });
});
