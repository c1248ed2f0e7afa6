import { describe, expect, it } from 'vitest';

import { createMemoryGraphStore } from '../../src/adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { AbortError, ValidationError } from '../../src/errors/index.js';
import type { EmbeddingProvider } from '../../src/ports/embedding-provider.js';
import { createGraphIndexer } from '../../src/ingest/graph.js';
import type { KeywordIndex } from '../../src/ports/keyword-index.js';
import type { Reranker } from '../../src/ports/reranker.js';
import { createEmbeddingCache } from '../../src/pipeline/embedding-cache.js';
import {
  retrieve,
  type RetrievalDeps,
  type RetrievalOptions,
} from '../../src/pipeline/retrieve.js';
import { reciprocalRankFusion } from '../../src/pipeline/retrieve/fuse.js';
import { adaptiveK, relevanceScore } from '../../src/pipeline/retrieve/relevance.js';

/** An embedder over a fixed vocabulary: one axis per known word. */
function vocabularyEmbedder(vocabulary: readonly string[]): EmbeddingProvider & { calls: number } {
  const embedder = {
    name: 'vocabulary',
    specificationVersion: 'v1' as const,
    id: 'vocabulary-v1',
    dimensions: vocabulary.length + 1,
    calls: 0,
    async embed(texts: readonly string[]) {
      embedder.calls++;
      return texts.map((text) => {
        const vector = new Float32Array(vocabulary.length + 1);
        vector[vocabulary.length] = 0.01; // never a zero vector
        for (const word of text.toLowerCase().split(/\W+/)) {
          const index = vocabulary.indexOf(word);
          if (index >= 0) vector[index]! += 1;
        }
        return vector;
      });
    },
  };
  return embedder;
}

const chunks = [
  {
    id: 'refund#0',
    documentId: 'refund',
    title: 'Refunds',
    text: 'refunds are issued within 14 days',
  },
  {
    id: 'refund#1',
    documentId: 'refund',
    title: 'Refunds',
    text: 'digital goods refunds need a receipt',
  },
  {
    id: 'ship#0',
    documentId: 'shipping',
    title: 'Shipping',
    text: 'shipping takes 3 days worldwide',
  },
  { id: 'hours#0', documentId: 'hours', title: null, text: 'the office opens at nine' },
];

async function setup(): Promise<
  RetrievalDeps & { embedder: ReturnType<typeof vocabularyEmbedder> }
> {
  const embedder = vocabularyEmbedder([
    'refunds',
    'issued',
    'days',
    'digital',
    'goods',
    'shipping',
    'office',
  ]);
  const vectorStore = createMemoryVectorStore();
  const keywordIndex = createMemoryKeywordIndex();
  const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
  const records = chunks.map((chunk, index) => ({
    id: chunk.id,
    text: chunk.text,
    metadata: {
      documentId: chunk.documentId,
      chunkIndex: index,
      text: chunk.text,
      ...(chunk.title === null ? {} : { title: chunk.title }),
      lang: 'en',
    },
  }));
  await vectorStore.upsert(
    'kb',
    records.map((record, index) => ({ ...record, vector: vectors[index]! })),
  );
  await keywordIndex.add('kb', records);
  embedder.calls = 0;
  return { embedder, vectorStore, keywordIndex, embeddingCache: createEmbeddingCache() };
}

const base: RetrievalOptions = { namespace: 'kb', k: 2, maxK: 2, candidates: 10, threshold: 0 };

describe('reciprocalRankFusion', () => {
  it('sums weighted reciprocal ranks and orders by the fused score', () => {
    const fused = reciprocalRankFusion(
      [
        { ids: ['a', 'b', 'c'], weight: 1 },
        { ids: ['c', 'b', 'd'], weight: 1 },
      ],
      60,
    );
    // c: 1/63 + 1/61 = 0.032266 edges out b: 2/62 = 0.032258
    expect(fused.map((item) => item.id)).toEqual(['c', 'b', 'a', 'd']);
    expect(fused[0]!.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(2 / 62, 12);
    expect(fused[1]!.ranks).toEqual([2, 2]);
    expect(fused[3]!.ranks).toEqual([null, 3]);
  });

  it('lets a heavier list lead, counts repeated ids once and breaks ties by best rank', () => {
    const weighted = reciprocalRankFusion([
      { ids: ['a', 'b'], weight: 0.2 },
      { ids: ['b', 'a'], weight: 1 },
    ]);
    expect(weighted.map((item) => item.id)).toEqual(['b', 'a']);
    const repeated = reciprocalRankFusion([{ ids: ['a', 'a', 'b'] }], 1);
    expect(repeated.map((item) => [item.id, item.score])).toEqual([
      ['a', 1 / 2],
      ['b', 1 / 4],
    ]);
    const tie = reciprocalRankFusion([{ ids: ['x', 'y'] }, { ids: ['y', 'x'] }], 60);
    expect(tie.map((item) => item.id)).toEqual(['x', 'y']);
  });

  it('orders equal scores by best rank, then id, on random lists (reference sort)', () => {
    let state = 5;
    const next = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    for (let trial = 0; trial < 50; trial++) {
      const lists = [0, 1, 2].map((list) => ({
        ids: Array.from({ length: 20 }, () => `d${Math.floor(next() * 30)}`),
        weight: list === 2 ? 1 : [0.5, 1][Math.floor(next() * 2)]!,
      }));
      const fused = reciprocalRankFusion(lists, 3);
      const best = (ranks: readonly (number | null)[]) =>
        Math.min(...ranks.map((rank) => rank ?? Infinity));
      const reference = [...fused].sort(
        (a, b) =>
          b.score - a.score ||
          best(a.ranks) - best(b.ranks) ||
          (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
      expect(fused).toEqual(reference);
      expect(new Set(fused.map((item) => item.id)).size).toBe(fused.length);
    }
  });
});

describe('relevanceScore and adaptiveK', () => {
  it('averages the rescaled cosine and the coverage, a missing signal counting as 0', () => {
    expect(relevanceScore(0.5, 1)).toBe(1);
    expect(relevanceScore(0.3, 0.5)).toBeCloseTo(0.5, 10);
    expect(relevanceScore(0.05, null)).toBe(0);
    expect(relevanceScore(null, 0.8)).toBeCloseTo(0.4, 10);
    expect(relevanceScore(0.6, 0.4, [0.2, 0.8])).toBeCloseTo((2 / 3 + 0.4) / 2, 10);
  });

  it('widens only when the top scores are within the spread', () => {
    expect(adaptiveK([0.8, 0.78, 0.77, 0.5, 0.4], 3, 5, 0.05)).toBe(5);
    expect(adaptiveK([0.9, 0.7, 0.6, 0.5, 0.4], 3, 5, 0.05)).toBe(3);
    expect(adaptiveK([0.8, 0.8, 0.8], 3, 5, 0.05)).toBe(3);
    expect(adaptiveK([0.8, 0.8, 0.8, 0.8], 3, 3, 0.05)).toBe(3);
  });
});

describe('retrieve', () => {
  it('fuses vector and keyword hits into chunks with metadata, scores and types', async () => {
    const deps = await setup();
    const result = await retrieve('How are refunds issued?', deps, base);
    expect(result.chunks[0]).toMatchObject({
      chunkId: 'refund#0',
      documentId: 'refund',
      text: 'refunds are issued within 14 days',
      title: 'Refunds',
      uri: null,
      type: 'hybrid',
      metadata: { documentId: 'refund', chunkIndex: 0, title: 'Refunds', lang: 'en' },
    });
    expect(result.chunks[0]!.metadata).not.toHaveProperty('text');
    expect(result.chunks[0]!.keywordScore).toBeCloseTo(1, 10);
    expect(result.chunks[0]!.vectorScore).toBeGreaterThan(0.5);
    expect(result.chunks).toHaveLength(2);
    expect(result.topScore).toBe(Math.max(...result.chunks.map((chunk) => chunk.score)));
    expect(result.vectorHits).toBeGreaterThan(0);
    expect(result.keywordHits).toBeGreaterThan(0);
    expect(result.widened).toBe(false);
  });

  it('orders by fused rank: the keyword list leads by default', async () => {
    const deps = await setup();
    const keywordOnly = await retrieve('receipt', deps, { ...base, k: 1 });
    expect(keywordOnly.chunks[0]).toMatchObject({ chunkId: 'refund#1', type: 'hybrid' });
    const byVector = await retrieve('digital goods refunds', deps, {
      ...base,
      weights: { vector: 1, keyword: 0 },
    });
    expect(byVector.chunks.every((chunk) => chunk.type === 'vector')).toBe(true);
    expect(byVector.keywordHits).toBe(0);
    expect(byVector.chunks[0]!.chunkId).toBe('refund#1');
  });

  it('drops chunks under the threshold and reports topScore 0 when nothing is left', async () => {
    const deps = await setup();
    const all = await retrieve('refunds days', deps, { ...base, k: 4, maxK: 4 });
    // A chunk with no relevance at all is never returned, whatever the threshold.
    expect(all.chunks.every((chunk) => chunk.score > 0)).toBe(true);
    const scores = all.chunks.map((chunk) => chunk.score);
    const cut = (Math.max(...scores) + Math.min(...scores)) / 2;
    const kept = await retrieve('refunds days', deps, { ...base, k: 4, maxK: 4, threshold: cut });
    expect(kept.chunks.length).toBeLessThan(all.chunks.length);
    expect(kept.chunks.every((chunk) => chunk.score >= cut)).toBe(true);
    // 'unicorn' is in no chunk, so no chunk covers the whole query.
    const none = await retrieve('refunds unicorn', deps, { ...base, threshold: 0.9 });
    expect(none.chunks).toEqual([]);
    expect(none.topScore).toBe(0);
  });

  it('widens k to maxK when the top scores are close together', async () => {
    const deps = await setup();
    // 'days' appears in two chunks equally: the top-2 scores tie, so k widens.
    const widened = await retrieve('days', deps, { ...base, k: 1, maxK: 3, widenSpread: 0.2 });
    expect(widened.widened).toBe(true);
    expect(widened.chunks.length).toBeGreaterThan(1);
    const fixed = await retrieve('days', deps, { ...base, k: 1, maxK: 1 });
    expect(fixed.widened).toBe(false);
    expect(fixed.chunks).toHaveLength(1);
  });

  it('applies the filter to both searches', async () => {
    const deps = await setup();
    const result = await retrieve('refunds shipping days', deps, {
      ...base,
      k: 4,
      maxK: 4,
      filter: { documentId: 'shipping' },
    });
    expect(result.chunks.map((chunk) => chunk.chunkId)).toEqual(['ship#0']);
  });

  it('embeds a repeated query once through the cache', async () => {
    const deps = await setup();
    const first = await retrieve('refunds', deps, base);
    const second = await retrieve('refunds', deps, base);
    expect(first.cacheHit).toBe(false);
    expect(second.cacheHit).toBe(true);
    expect(deps.embedder.calls).toBe(1);
    expect(second.chunks).toEqual(first.chunks);
  });

  it('uses a normalised BM25 score when the keyword index gives no coverage', async () => {
    const deps = await setup();
    const inner = deps.keywordIndex;
    const keywordIndex: KeywordIndex = {
      ...inner,
      search: async (namespace, query, options) =>
        (await inner.search(namespace, query, options)).map(
          ({ coverage: _ignored, ...match }) => match,
        ),
    };
    const result = await retrieve(
      'refunds receipt',
      { ...deps, keywordIndex },
      { ...base, k: 3, maxK: 3 },
    );
    const keywordScores = result.chunks
      .map((chunk) => chunk.keywordScore)
      .filter((score) => score !== null);
    expect(Math.max(...keywordScores)).toBe(1);
  });

  it('rejects bad options and honours abort', async () => {
    const deps = await setup();
    await expect(retrieve('  ', deps, base)).rejects.toThrow(ValidationError);
    await expect(retrieve('x', deps, { ...base, k: 0 })).rejects.toThrow(/k must be/);
    await expect(retrieve('x', deps, { ...base, maxK: 1 })).rejects.toThrow(/maxK/);
    await expect(retrieve('x', deps, { ...base, threshold: 2 })).rejects.toThrow(/threshold/);
    await expect(
      retrieve('x', deps, { ...base, weights: { vector: 0, keyword: 0 } }),
    ).rejects.toThrow(/weights/);
    await expect(retrieve('x', deps, { ...base, namespace: '' })).rejects.toThrow(ValidationError);
    const controller = new AbortController();
    controller.abort();
    await expect(retrieve('refunds', deps, { ...base, signal: controller.signal })).rejects.toThrow(
      AbortError,
    );
  });
});

describe('retrieve with the knowledge graph and rerank hooks', () => {
  async function withGraph() {
    const deps = await setup();
    const graphStore = createMemoryGraphStore();
    // The refund policy links to the shipping page; nothing links to the office hours.
    await createGraphIndexer({ graphStore }).index('kb', [
      {
        doc: { id: 'refund', text: 'Refunds, see [shipping](shipping).' },
        chunks: chunks.filter((c) => c.documentId === 'refund'),
      },
      { doc: { id: 'shipping', text: 'x' }, chunks: chunks.filter((c) => c.id === 'ship#0') },
      { doc: { id: 'hours', text: 'x' }, chunks: chunks.filter((c) => c.id === 'hours#0') },
    ]);
    return { ...deps, graphStore };
  }

  it('behaves as before without a graph store, and reports neutral boosts', async () => {
    const deps = await setup();
    const plain = await retrieve('refunds days', deps, { ...base, graph: { depth: 2 } });
    expect(plain.graphHits).toBe(0);
    expect(plain.graphSupport).toBeUndefined();
    for (const chunk of plain.chunks) {
      expect(chunk).toMatchObject({ graphBoost: 1, learnedBoost: 1, graphContext: null });
    }
  });

  it('expands hits through CITES to chunks the searches missed, typed graph', async () => {
    const deps = await withGraph();
    const options = { ...base, k: 4, maxK: 4, weights: { vector: 0, keyword: 1, graph: 0.5 } };
    const without = await retrieve('receipt', deps, options);
    expect(without.chunks.map((chunk) => chunk.chunkId)).toEqual(['refund#1']);
    // One candidate per search, so the shipping chunk is reachable only through the graph.
    const expanded = await retrieve('receipt', deps, {
      ...options,
      candidates: 1,
      weights: { vector: 1, keyword: 1, graph: 0.5 },
      graph: { depth: 3, edgeTypes: ['CITES', 'DERIVED_FROM'] },
    });
    const ship = expanded.chunks.find((chunk) => chunk.chunkId === 'ship#0');
    expect(expanded.graphHits).toBeGreaterThan(0);
    expect(ship).toBeDefined();
    expect(ship!.graphContext).toMatchObject({ nodeId: 'chunk:ship#0' });
    expect(ship!.type).toBe('graph');
    expect(ship!.graphContext!.pathDepth).toBeGreaterThanOrEqual(2);
    expect(ship!.score).toBeGreaterThan(0);
    expect(expanded.chunks[0]!.graphContext).toMatchObject({ pathDepth: 0 });
    expect(expanded.chunks.some((chunk) => chunk.chunkId === 'hours#0')).toBe(false);
  });

  it('graph rerank gives boosts in [1, 2] and a graph support', async () => {
    const deps = await withGraph();
    const result = await retrieve('refunds days', deps, {
      ...base,
      k: 3,
      maxK: 3,
      graphRerank: true,
    });
    expect(result.graphSupport).toBeGreaterThanOrEqual(0);
    expect(result.graphSupport).toBeLessThanOrEqual(1);
    const refund = result.chunks.filter((chunk) => chunk.documentId === 'refund');
    // the two refund chunks support each other through their document
    expect(refund.every((chunk) => chunk.graphBoost > 1)).toBe(true);
    for (const chunk of result.chunks) {
      expect(chunk.graphBoost).toBeGreaterThanOrEqual(1);
      expect(chunk.graphBoost).toBeLessThanOrEqual(2);
    }
  });

  it('applies the learned boost and the reranker, and survives a failing reranker', async () => {
    const deps = await setup();
    const learned = await retrieve(
      'refunds days',
      { ...deps, learnedBoost: (id) => (id === 'ship#0' ? 5 : 1) },
      { ...base, k: 3, maxK: 3 },
    );
    expect(learned.chunks[0]).toMatchObject({ chunkId: 'ship#0', learnedBoost: 2 });

    const calls: string[][] = [];
    const reranker: Reranker = {
      name: 'reverse',
      specificationVersion: 'v1',
      async rerank(_query, candidates) {
        calls.push(candidates.map((c) => c.id));
        return candidates.map((c, index) => ({ id: c.id, score: index / candidates.length }));
      },
    };
    const options = { ...base, k: 3, maxK: 3 };
    const plain = await retrieve('refunds days', deps, options);
    const reranked = await retrieve(
      'refunds days',
      { ...deps, reranker },
      { ...options, rerank: true },
    );
    expect(reranked.reranked).toBe(true);
    expect(reranked.chunks.map((c) => c.chunkId)).toEqual(
      plain.chunks.map((c) => c.chunkId).reverse(),
    );
    expect(reranked.chunks[0]!.rerankScore).not.toBeNull();
    const notAsked = await retrieve('refunds days', { ...deps, reranker }, options);
    expect(notAsked.reranked).toBe(false);
    expect(calls).toHaveLength(1);

    const broken: Reranker = { ...reranker, rerank: () => Promise.reject(new Error('503')) };
    const degraded = await retrieve(
      'refunds days',
      { ...deps, reranker: broken },
      {
        ...options,
        rerank: true,
      },
    );
    expect(degraded.reranked).toBe(false);
    expect(degraded.chunks.map((c) => c.chunkId)).toEqual(plain.chunks.map((c) => c.chunkId));
  });

  it('rejects bad graph options', async () => {
    const deps = await withGraph();
    await expect(retrieve('x', deps, { ...base, graph: { depth: 0 } })).rejects.toThrow(
      /graph.depth/,
    );
    await expect(
      retrieve('x', deps, { ...base, weights: { vector: 1, keyword: 1, graph: -1 } }),
    ).rejects.toThrow(/weights.graph/);
    await expect(retrieve('x', deps, { ...base, graphRerankWeight: Number.NaN })).rejects.toThrow(
      /graphRerankWeight/,
    );
  });
});
