import { describe, expect, it } from 'vitest';

import { loadHnswLibrary, type HnswLibrary } from '../../../src/adapters/memory/hnsw-index.js';
import {
  createMemoryVectorStore,
  type MemoryVectorStoreSettings,
} from '../../../src/adapters/memory/vector-store.js';
import { AbortError, ValidationError } from '../../../src/errors/index.js';
import { testVectorStore } from '../../../src/testing/test-vector-store.js';
import { indexedAfterWrites, randomVectors, recallAgainst } from '../../util/helpers.js';

testVectorStore({
  title: 'memory vector store (exact)',
  create: () => createMemoryVectorStore({ index: 'exact' }),
});
testVectorStore({
  title: 'memory vector store (hnsw forced)',
  create: () => indexedAfterWrites(createMemoryVectorStore({ index: 'hnsw' })),
});
testVectorStore({
  title: 'memory vector store (auto, threshold 2)',
  create: () => indexedAfterWrites(createMemoryVectorStore({ index: 'auto', hnswThreshold: 2 })),
});
testVectorStore({
  title: 'memory vector store (auto, default threshold)',
  create: () => createMemoryVectorStore(),
});

async function filled(settings: MemoryVectorStoreSettings, count = 600, dimensions = 16) {
  const store = createMemoryVectorStore(settings);
  const vectors = randomVectors(count, dimensions, 7);
  await store.upsert(
    'ns',
    vectors.map((vector, index) => ({
      id: `v${index}`,
      vector,
      metadata: { parity: index % 2, bucket: index % 100 },
    })),
  );
  return { store, vectors };
}

function seeded() {
  const store = createMemoryVectorStore({ initialCapacity: 1 });
  return store
    .upsert('ns', [
      { id: 'x', vector: [1, 0, 0], metadata: { kind: 'axis', n: 1 } },
      { id: 'y', vector: [0, 2, 0], metadata: { kind: 'axis', n: 2 } },
      { id: 'xy', vector: [1, 1, 0], metadata: { kind: 'diagonal', n: 3 } },
      { id: 'z', vector: [0, 0, 5], metadata: { kind: 'axis', n: 4 } },
    ])
    .then(() => store);
}

describe('createMemoryVectorStore', () => {
  it('ranks by cosine similarity, independent of vector length', async () => {
    const store = await seeded();
    const matches = await store.query('ns', [3, 1, 0], { k: 3 });
    expect(matches.map((match) => match.id)).toEqual(['x', 'xy', 'y']);
    expect(matches[0]!.score).toBeCloseTo(3 / Math.sqrt(10), 5);
    expect(matches[1]!.score).toBeCloseTo(4 / Math.sqrt(20), 5);
    expect(matches[0]!.metadata).toEqual({ kind: 'axis', n: 1 });
  });

  it('returns the top k of many vectors in order (heap selection)', async () => {
    const store = createMemoryVectorStore();
    const records = Array.from({ length: 200 }, (_, index) => {
      const angle = (index / 200) * Math.PI;
      return { id: `v${index}`, vector: [Math.cos(angle), Math.sin(angle)], metadata: {} };
    });
    await store.upsert('ns', records);
    const matches = await store.query('ns', [1, 0], { k: 5 });
    expect(matches.map((match) => match.id)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
  });

  it('applies metadata filters', async () => {
    const store = await seeded();
    const matches = await store.query('ns', [1, 0, 0], {
      k: 10,
      filter: { kind: 'axis', n: { $gte: 2 } },
    });
    expect(matches.map((match) => match.id).sort()).toEqual(['y', 'z']);
  });

  it('replaces a record on upsert of the same id', async () => {
    const store = await seeded();
    await store.upsert('ns', [{ id: 'x', vector: [0, 0, 1], metadata: { kind: 'moved', n: 1 } }]);
    expect(await store.count('ns')).toBe(4);
    const [best] = await store.query('ns', [0, 0, 1], { k: 1, filter: { kind: 'moved' } });
    expect(best).toMatchObject({ id: 'x', metadata: { kind: 'moved' } });
    expect(best!.score).toBeCloseTo(1, 6);
  });

  it('deletes by id and by filter, keeping the remaining vectors correct', async () => {
    const store = await seeded();
    expect(await store.delete('ns', { ids: ['x', 'nope'] })).toBe(1);
    // 'z' was swapped into x's slot: it must still be found with its own vector.
    const [best] = await store.query('ns', [0, 0, 1], { k: 1 });
    expect(best).toMatchObject({ id: 'z' });
    expect(best!.score).toBeCloseTo(1, 6);
    expect(await store.delete('ns', { filter: { kind: 'diagonal' } })).toBe(1);
    expect(await store.count('ns')).toBe(2);
    const ids = (await store.query('ns', [1, 1, 1], { k: 10 })).map((match) => match.id);
    expect(ids.sort()).toEqual(['y', 'z']);
  });

  it('keeps namespaces isolated', async () => {
    const store = await seeded();
    await store.upsert('other', [{ id: 'x', vector: [0, 1], metadata: {} }]);
    expect(await store.count('other')).toBe(1);
    expect(await store.count('ns')).toBe(4);
    expect(await store.query('empty', [1, 0, 0], { k: 3 })).toEqual([]);
    expect(await store.delete('other', { ids: ['y'] })).toBe(0);
    expect(await store.count('ns')).toBe(4);
  });

  it('rejects bad input with ValidationError naming the problem', async () => {
    const store = await seeded();
    await expect(store.upsert('', [])).rejects.toThrow(ValidationError);
    await expect(store.query('', [1, 0, 0], { k: 1 })).rejects.toThrow(ValidationError);
    await expect(store.upsert('ns', [{ id: 'w', vector: [1, 0], metadata: {} }])).rejects.toThrow(
      /'w' has 2 dimensions; the namespace has 3/,
    );
    await expect(
      store.upsert('ns', [{ id: 'n', vector: [1, Number.NaN, 0], metadata: {} }]),
    ).rejects.toThrow(ValidationError);
    await expect(
      store.upsert('ns', [{ id: 'i', vector: [Infinity, 0, 0], metadata: {} }]),
    ).rejects.toThrow(ValidationError);
    await expect(
      store.upsert('ns', [{ id: '0', vector: [0, 0, 0], metadata: {} }]),
    ).rejects.toThrow(/zero vector/);
    await expect(store.upsert('ns', [{ id: '', vector: [1, 0, 0], metadata: {} }])).rejects.toThrow(
      ValidationError,
    );
    await expect(store.query('ns', [1, 0], { k: 1 })).rejects.toThrow(/2 dimensions/);
    for (const k of [0, -1, 1.5, Number.NaN]) {
      await expect(store.query('ns', [1, 0, 0], { k })).rejects.toThrow(ValidationError);
    }
    await expect(
      store.query('ns', [1, 0, 0], { k: 1, filter: { n: { $foo: 1 } as never } }),
    ).rejects.toThrow(/filter\.n/);
  });

  it('stores nothing from a batch with one bad record', async () => {
    const store = await seeded();
    await expect(
      store.upsert('ns', [
        { id: 'ok', vector: [1, 2, 3], metadata: {} },
        { id: 'bad', vector: [1, 2], metadata: {} },
      ]),
    ).rejects.toThrow(ValidationError);
    expect(await store.count('ns')).toBe(4);
  });

  it('honours an aborted signal', async () => {
    const store = await seeded();
    const controller = new AbortController();
    controller.abort();
    await expect(
      store.query('ns', [1, 0, 0], { k: 1, signal: controller.signal }),
    ).rejects.toSatisfy((error) => AbortError.isInstance(error));
    await expect(store.upsert('ns', [], { signal: controller.signal })).rejects.toThrow(AbortError);
  });

  it('does not see later changes to the caller’s vector or metadata', async () => {
    const store = createMemoryVectorStore();
    const vector = new Float32Array([1, 0]);
    const metadata: Record<string, string> = { tag: 'a' };
    await store.upsert('ns', [{ id: 'a', vector, metadata }]);
    vector[0] = 0;
    vector[1] = 1;
    metadata.tag = 'b';
    const [match] = await store.query('ns', [1, 0], { k: 1 });
    expect(match!.score).toBeCloseTo(1, 6);
    expect(match!.metadata).toEqual({ tag: 'a' });
  });
});

describe('createMemoryVectorStore with an HNSW graph', () => {
  it('answers exactly while building, then from the graph with the same top hits', async () => {
    const exact = (await filled({ index: 'exact' })).store;
    const { store, vectors } = await filled({ index: 'hnsw', hnsw: { efSearch: 200 } });
    expect(store.indexStats('ns').state).toBe('building');
    const before = await store.query('ns', vectors[3]!, { k: 10 });
    expect(before).toEqual(await exact.query('ns', vectors[3]!, { k: 10 }));
    await store.whenIndexed();
    expect(store.indexStats('ns')).toMatchObject({ state: 'hnsw', indexed: 600, pending: 0 });
    expect(await recallAgainst(store, exact, randomVectors(20, 16, 99))).toBeGreaterThan(0.9);
  });

  it('re-scores graph hits exactly', async () => {
    const { store, vectors } = await filled({ index: 'hnsw' });
    await store.whenIndexed();
    const [best] = await store.query('ns', vectors[5]!, { k: 1 });
    expect(best?.id).toBe('v5');
    expect(best?.score).toBeCloseTo(1, 6);
  });

  it('sees updates and deletes by id at once, through the graph', async () => {
    const { store, vectors } = await filled({ index: 'hnsw' });
    await store.whenIndexed();
    await store.upsert('ns', [{ id: 'v1', vector: vectors[2]!, metadata: { moved: true } }]);
    expect(await store.delete('ns', { ids: ['v2'] })).toBe(1);
    // Pending writes are scanned exactly until the graph catches up.
    const [pending] = await store.query('ns', vectors[2]!, { k: 1 });
    expect(pending).toMatchObject({ id: 'v1', metadata: { moved: true } });
    await store.whenIndexed();
    expect(store.indexStats('ns')).toMatchObject({ indexed: 599, pending: 0, count: 599 });
    const matches = await store.query('ns', vectors[2]!, { k: 5 });
    expect(matches[0]).toMatchObject({ id: 'v1' });
    expect(matches.map((match) => match.id)).not.toContain('v2');
    const [old] = await store.query('ns', vectors[1]!, { k: 1 });
    expect(old?.id).not.toBe('v1');
  });

  it('filters graph candidates and falls back to an exact scan for selective filters', async () => {
    const exact = (await filled({ index: 'exact' })).store;
    const { store, vectors } = await filled({ index: 'hnsw', filterOverfetch: 1 });
    await store.whenIndexed();
    const broad = await store.query('ns', vectors[0]!, { k: 5, filter: { parity: 0 } });
    expect(broad).toHaveLength(5);
    expect(broad.every((match) => match.metadata['parity'] === 0)).toBe(true);
    // One record in 100 matches: the graph's 100 candidates hold too few, so the scan is exact.
    const selective = await store.query('ns', vectors[0]!, { k: 5, filter: { bucket: 42 } });
    expect(selective).toEqual(
      await exact.query('ns', vectors[0]!, { k: 5, filter: { bucket: 42 } }),
    );
    expect(selective).toHaveLength(5);
  });

  it('keeps namespaces apart with graphs', async () => {
    const store = createMemoryVectorStore({ index: 'hnsw' });
    const [a, b] = randomVectors(2, 8, 3);
    await store.upsert('one', [{ id: 'x', vector: a!, metadata: { owner: 'one' } }]);
    await store.upsert('two', [{ id: 'x', vector: b!, metadata: { owner: 'two' } }]);
    await store.whenIndexed();
    const matches = await store.query('one', b!, { k: 10 });
    expect(matches.map((match) => match.metadata['owner'])).toEqual(['one']);
  });

  it('builds in auto mode only from the threshold on', async () => {
    const store = createMemoryVectorStore({ hnswThreshold: 50 });
    const vectors = randomVectors(60, 8, 5);
    const records = vectors.map((vector, index) => ({ id: `v${index}`, vector, metadata: {} }));
    await store.upsert('ns', records.slice(0, 49));
    await store.whenIndexed();
    expect(store.indexStats('ns').state).toBe('exact');
    await store.upsert('ns', records.slice(49));
    await store.whenIndexed();
    expect(store.indexStats('ns')).toMatchObject({ state: 'hnsw', indexed: 60 });
    await store.delete('ns', { ids: records.slice(0, 40).map((record) => record.id) });
    expect(store.indexStats('ns').state).toBe('exact');
  });

  it('rejects bad vectors with the graph in use and keeps it consistent', async () => {
    const { store, vectors } = await filled({ index: 'hnsw' });
    await store.whenIndexed();
    await expect(store.upsert('ns', [{ id: 'w', vector: [1, 2], metadata: {} }])).rejects.toThrow(
      ValidationError,
    );
    await expect(
      store.query('ns', new Float32Array(16).fill(Number.NaN), { k: 1 }),
    ).rejects.toThrow(ValidationError);
    await store.whenIndexed();
    expect(store.indexStats('ns')).toMatchObject({ count: 600, indexed: 600 });
    expect((await store.query('ns', vectors[9]!, { k: 1 }))[0]?.id).toBe('v9');
  });

  it('scans exactly instead of traversing the whole graph when asked for most records', async () => {
    const searches: number[] = [];
    const counting = async (): Promise<HnswLibrary> => {
      const library = await loadHnswLibrary();
      return {
        HierarchicalNSW: class {
          private readonly graph;
          constructor(space: 'l2' | 'ip' | 'cosine', dimensions: number, file: string) {
            this.graph = new library.HierarchicalNSW(space, dimensions, file);
          }
          initIndex(max: number, m: number, ef: number, seed: number) {
            this.graph.initIndex(max, m, ef, seed);
          }
          resizeIndex(max: number) {
            this.graph.resizeIndex(max);
          }
          addPoint(point: Float32Array | number[], label: number, replace: boolean) {
            this.graph.addPoint(point, label, replace);
          }
          markDelete(label: number) {
            this.graph.markDelete(label);
          }
          setEfSearch(ef: number) {
            this.graph.setEfSearch(ef);
          }
          searchKnn(query: Float32Array | number[], k: number, filter: undefined) {
            searches.push(k);
            return this.graph.searchKnn(query, k, filter);
          }
        },
      };
    };
    const { store, vectors } = await filled({ index: 'hnsw', loadHnswlib: counting });
    await store.whenIndexed();
    expect(store.indexStats('ns').state).toBe('hnsw');
    await store.query('ns', vectors[1]!, { k: 10 });
    expect(searches).toEqual([10]);
    // Every chunk of a few documents, as ingestion asks before rewriting them: k = all records.
    const all = await store.query('ns', vectors[1]!, {
      k: 600,
      filter: { bucket: { $in: [1, 2] } },
    });
    expect(searches).toEqual([10]);
    expect(all.map((match) => match.id).sort()).toEqual([
      'v1',
      'v101',
      'v102',
      'v2',
      'v201',
      'v202',
      'v301',
      'v302',
      'v401',
      'v402',
      'v501',
      'v502',
    ]);
    expect(await store.delete('ns', { filter: { bucket: { $in: [1, 2] } } })).toBe(12);
    expect(await store.count('ns')).toBe(588);
  });

  it('stays exact and reports the error when hnswlib fails to load', async () => {
    const errors: unknown[] = [];
    const store = createMemoryVectorStore({
      index: 'hnsw',
      loadHnswlib: () => Promise.reject(new Error('no wasm here')),
      onIndexError: (error) => errors.push(error),
    });
    await store.upsert('ns', [{ id: 'a', vector: [1, 0, 0], metadata: {} }]);
    await store.whenIndexed();
    expect(errors).toHaveLength(1);
    expect(store.indexStats('ns')).toMatchObject({ state: 'exact', count: 1 });
    expect((await store.query('ns', [1, 0, 0], { k: 1 }))[0]?.id).toBe('a');
  });

  it('rejects invalid settings with ValidationError naming the field', () => {
    expect(() => createMemoryVectorStore({ index: 'fast' as never })).toThrow(/settings\.index/);
    expect(() => createMemoryVectorStore({ hnswThreshold: 0 })).toThrow(/hnswThreshold/);
    expect(() => createMemoryVectorStore({ hnsw: { m: 1.5 } })).toThrow(/settings\.hnsw\.m/);
  });
});

describe('memory vector store snapshots', () => {
  it('round-trips vectors, metadata and namespaces, and rebuilds graphs', async () => {
    const { store, vectors } = await filled({ index: 'exact' }, 300, 12);
    await store.upsert('other', [{ id: 'o', vector: [1, 2, 3], metadata: { note: 'x' } }]);
    await store.delete('ns', { ids: ['v0'] });
    const bytes = store.snapshot();
    const copy = createMemoryVectorStore({ index: 'hnsw', snapshot: bytes });
    expect(await copy.count('ns')).toBe(299);
    expect(await copy.count('other')).toBe(1);
    await copy.whenIndexed();
    expect(copy.indexStats('ns').state).toBe('hnsw');
    for (const query of [vectors[1]!, vectors[77]!]) {
      expect(await copy.query('ns', query, { k: 3 })).toEqual(
        await store.query('ns', query, { k: 3 }),
      );
    }
    expect(await copy.query('other', [1, 2, 3], { k: 1 })).toEqual([
      { id: 'o', score: expect.closeTo(1, 6), metadata: { note: 'x' } },
    ]);
    const restored = createMemoryVectorStore();
    restored.restore(bytes);
    expect(await restored.count('ns')).toBe(299);
  });

  it('rejects corrupt, truncated and foreign snapshots with ValidationError, store unchanged', async () => {
    const { store } = await filled({ index: 'exact' }, 20, 4);
    const bytes = store.snapshot();
    const target = createMemoryVectorStore();
    await target.upsert('keep', [{ id: 'k', vector: [1, 0], metadata: {} }]);
    const corrupt = bytes.slice();
    corrupt[corrupt.length - 3]! ^= 0xff;
    const wrongVersion = bytes.slice();
    wrongVersion[8] = 99;
    const wrongKind = bytes.slice();
    wrongKind[10] = 3;
    for (const [bad, message] of [
      [corrupt, /checksum/],
      [bytes.slice(0, bytes.length - 8), /header announces/],
      [bytes.slice(0, 10), /truncated/],
      [wrongVersion, /version 99/],
      [wrongKind, /holds graph, not vectors/],
      [new TextEncoder().encode('not a snapshot at all, clearly'), /magic/],
    ] as const) {
      expect(() => target.restore(bad)).toThrow(ValidationError);
      expect(() => target.restore(bad)).toThrow(message);
    }
    expect(() => target.restore('x' as never)).toThrow(ValidationError);
    expect(await target.count('keep')).toBe(1);
    expect(await target.count('ns')).toBe(0);
    expect(() => createMemoryVectorStore({ snapshot: corrupt })).toThrow(ValidationError);
  });

  it('snapshots an empty store', async () => {
    const bytes = createMemoryVectorStore().snapshot();
    const copy = createMemoryVectorStore({ snapshot: bytes });
    expect(await copy.count('ns')).toBe(0);
  });
});
