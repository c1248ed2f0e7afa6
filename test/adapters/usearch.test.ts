import { describe, expect, it } from 'vitest';

import {
  createMemoryVectorStore,
  type AnnIndexFactory,
  type MemoryVectorStoreSettings,
} from '../../src/adapters/memory/vector-store.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/adapters/memory/snapshot.js';
import { usearchAnn, type UsearchAnnSettings } from '../../src/adapters/usearch/index.js';
import { ConfigError, ValidationError } from '../../src/errors/index.js';
import { createChatEngine } from '../../src/index.js';
import { testVectorStore } from '../../src/testing/test-vector-store.js';
import { indexedAfterWrites, randomVectors, recallAgainst } from '../util/helpers.js';

/** One thread: the tests check behaviour, and the machine is shared. */
const ann = (settings: UsearchAnnSettings = {}) => usearchAnn({ threads: 1, ...settings });

testVectorStore({
  title: 'memory vector store with usearch (auto, threshold 2)',
  create: () =>
    indexedAfterWrites(createMemoryVectorStore({ index: 'auto', hnswThreshold: 2, ann: ann() })),
});
testVectorStore({
  title: 'memory vector store with usearch (hnsw forced, f32)',
  create: () =>
    indexedAfterWrites(
      createMemoryVectorStore({ index: 'hnsw', ann: ann({ quantization: 'f32' }) }),
    ),
});

/** A factory passing every call to `inner`, counting the vectors added. */
function counting(inner: AnnIndexFactory): AnnIndexFactory & { added: number; loaded: number } {
  const counter = {
    kind: inner.kind,
    batchSize: inner.batchSize,
    followWrites: inner.followWrites === true,
    added: 0,
    loaded: 0,
    async create(dimensions: number, capacity: number) {
      return track(await inner.create(dimensions, capacity));
    },
    async load(bytes: Uint8Array, dimensions: number) {
      counter.loaded++;
      return track(await inner.load!(bytes, dimensions));
    },
  };
  const track = (index: Awaited<ReturnType<AnnIndexFactory['create']>>) => {
    const add = index.add.bind(index);
    return Object.assign(index, {
      add(labels: readonly number[], vectors: Float32Array) {
        counter.added += labels.length;
        add(labels, vectors);
      },
    });
  };
  return counter;
}

/** `inner` whose `create` takes an event-loop turn, as a first library load does. */
const slowStart = (inner: AnnIndexFactory): AnnIndexFactory => ({
  ...inner,
  async create(dimensions: number, capacity: number) {
    await new Promise((resolve) => setImmediate(resolve));
    return inner.create(dimensions, capacity);
  },
});

async function filled(settings: MemoryVectorStoreSettings, count = 500, dimensions = 16) {
  const store = createMemoryVectorStore({ index: 'hnsw', ...settings });
  const vectors = randomVectors(count, dimensions, 7);
  await store.upsert(
    'ns',
    vectors.map((vector, index) => ({
      id: `v${index}`,
      vector,
      metadata: { parity: index % 2, bucket: index % 100 },
    })),
  );
  await store.whenIndexed();
  return { store, vectors };
}

describe('memory vector store with usearchAnn', () => {
  it('adds each upsert to the graph before the upsert resolves (followWrites); not when off', async () => {
    const vectors = randomVectors(400, 16, 3);
    const records = vectors.map((vector, index) => ({ id: `v${index}`, vector, metadata: {} }));
    const following = counting(slowStart(ann({ batchSize: 64 })));
    const store = createMemoryVectorStore({ index: 'hnsw', ann: following });
    for (let at = 0; at < records.length; at += 100) {
      await store.upsert('ns', records.slice(at, at + 100));
      expect(following.added).toBe(at + 100);
      expect(store.indexStats('ns')).toMatchObject({ state: 'hnsw', pending: 0 });
    }
    const lagging = counting(slowStart(ann({ batchSize: 64, followWrites: false })));
    const other = createMemoryVectorStore({ index: 'hnsw', ann: lagging });
    await other.upsert('ns', records.slice(0, 100));
    expect(lagging.added).toBe(0);
    await other.whenIndexed();
    expect(lagging.added).toBe(100);
  });

  it('holds the vectors of earlier groups while ingestion goes on', async () => {
    const following = counting(slowStart(ann({ batchSize: 64 })));
    const store = createMemoryVectorStore({ index: 'hnsw', ann: following });
    const seen: number[] = [];
    const upsert = store.upsert.bind(store);
    const vectorStore = Object.assign(store, {
      upsert: (...args: Parameters<typeof upsert>) => {
        seen.push(following.added);
        return upsert(...args);
      },
    });
    const engine = createChatEngine({ vectorStore });
    // 600 documents: three groups of ingestion (256 documents each at most), one upsert each.
    const documents = Array.from({ length: 600 }, (_, at) => ({
      id: `d${at}`,
      text: `document ${at} about topic ${at % 17} and subject ${at % 29}`,
    }));
    await engine.ingest(documents);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    // Each later group's upsert starts with the earlier groups' chunks already in the graph.
    for (let at = 1; at < seen.length; at++) expect(seen[at]).toBeGreaterThan(seen[at - 1]!);
    expect(following.added).toBe(await store.count('default'));
  });

  it('searches the usearch graph, in batches, with recall close to exact', async () => {
    const factory = counting(ann({ batchSize: 64 }));
    const { store } = await filled({ ann: factory });
    const exact = (await filled({ index: 'exact' })).store;
    expect(factory.added).toBe(500);
    expect(store.indexStats('ns')).toMatchObject({ state: 'hnsw', indexed: 500, pending: 0 });
    expect(await recallAgainst(store, exact, randomVectors(20, 16, 99))).toBeGreaterThan(0.9);
  });

  it('filters graph candidates, and sees deletes and re-adds of the same id', async () => {
    const { store, vectors } = await filled({ ann: ann() });
    const even = await store.query('ns', vectors[3]!, { k: 5, filter: { parity: 0 } });
    expect(even).toHaveLength(5);
    expect(even.every((match) => match.metadata['parity'] === 0)).toBe(true);
    expect(await store.delete('ns', { ids: ['v3'] })).toBe(1);
    await store.upsert('ns', [{ id: 'v1', vector: vectors[2]!, metadata: { moved: true } }]);
    await store.whenIndexed();
    // The old vectors of v1 and v3 left the graph: one live point per id.
    expect(store.indexStats('ns')).toMatchObject({ state: 'hnsw', indexed: 499, count: 499 });
    const near2 = await store.query('ns', vectors[2]!, { k: 2 });
    expect(near2.map((match) => match.id).sort()).toEqual(['v1', 'v2']);
    expect((await store.query('ns', vectors[3]!, { k: 5 })).map((m) => m.id)).not.toContain('v3');
    await store.upsert('ns', [{ id: 'v3', vector: vectors[3]!, metadata: {} }]);
    await store.whenIndexed();
    expect((await store.query('ns', vectors[3]!, { k: 1 }))[0]?.id).toBe('v3');
  });

  it('puts the graph into the snapshot and loads it instead of rebuilding', async () => {
    const { store, vectors } = await filled({ ann: ann() });
    await store.delete('ns', { ids: ['v0'] });
    const bytes = store.snapshot();
    const factory = counting(ann());
    const copy = createMemoryVectorStore({ index: 'hnsw', ann: factory, snapshot: bytes });
    // Written before the saved graph is loaded: replaces a saved point, deletes another.
    await copy.upsert('ns', [{ id: 'v5', vector: vectors[6]!, metadata: { moved: true } }]);
    await copy.delete('ns', { ids: ['v7'] });
    await copy.whenIndexed();
    expect(factory.loaded).toBe(1);
    expect(factory.added).toBe(1);
    expect(copy.indexStats('ns')).toMatchObject({ state: 'hnsw', indexed: 498, count: 498 });
    const near6 = await copy.query('ns', vectors[6]!, { k: 2 });
    expect(near6.map((match) => match.id).sort()).toEqual(['v5', 'v6']);
    for (const id of ['v0', 'v7']) {
      const index = Number(id.slice(1));
      expect((await copy.query('ns', vectors[index]!, { k: 5 })).map((m) => m.id)).not.toContain(
        id,
      );
    }
    const query = vectors[42]!;
    expect(await copy.query('ns', query, { k: 3 })).toEqual(
      await store.query('ns', query, { k: 3 }),
    );
  });

  it('rejects a snapshot whose saved-graph entry is hostile, naming the snapshot', async () => {
    const { store } = await filled({ ann: ann() }, 50);
    const { json, binary } = decodeSnapshot(store.snapshot(), 'vectors');
    const namespace = (json as { namespaces: Record<string, unknown>[] }).namespaces[0]!;
    const labels = namespace['labels'] as number[];
    const graph = namespace['graph'] as Record<string, unknown>;
    const tampered: Record<string, unknown>[] = [
      { labels: [labels[1], ...labels.slice(1)] }, // a duplicate label
      { labels: [1e9, ...labels.slice(1)] }, // a label past nextLabel
      { labels: labels.slice(1) }, // fewer labels than records
      { nextLabel: 3 }, // fewer labels than records can have
      { graph: { ...graph, cursor: -1 } },
      { graph: { ...graph, kind: 42 } },
      { graph: { ...graph, byteLength: (graph['byteLength'] as number) + 4096 } },
      { graph: { ...graph, byteLength: 2 ** 53 } },
    ];
    for (const change of tampered) {
      const bytes = encodeSnapshot('vectors', { namespaces: [{ ...namespace, ...change }] }, [
        binary,
      ]);
      let thrown: unknown;
      try {
        createMemoryVectorStore({ ann: ann(), snapshot: bytes });
      } catch (error) {
        thrown = error;
      }
      expect(ValidationError.isInstance(thrown), JSON.stringify(change)).toBe(true);
      expect((thrown as ValidationError).issues[0]?.path).toBe('snapshot');
    }
  });

  it('rebuilds from the vectors when the saved graph is of another kind, and other stores read it', async () => {
    const { store, vectors } = await filled({ ann: ann() });
    const bytes = store.snapshot();
    const other = counting(ann({ quantization: 'f16' }));
    const copy = createMemoryVectorStore({ index: 'hnsw', ann: other, snapshot: bytes });
    await copy.whenIndexed();
    expect(other.loaded).toBe(0);
    expect(other.added).toBe(500);
    const exact = createMemoryVectorStore({ index: 'exact', snapshot: bytes });
    const hnswlib = createMemoryVectorStore({ index: 'hnsw', snapshot: bytes });
    await hnswlib.whenIndexed();
    expect(hnswlib.indexStats('ns')).toMatchObject({ state: 'hnsw', indexed: 500 });
    const [best] = await exact.query('ns', vectors[9]!, { k: 1 });
    expect(best?.id).toBe('v9');
    expect((await copy.query('ns', vectors[9]!, { k: 1 }))[0]?.id).toBe('v9');
    // A snapshot of the restored store carries the graph on.
    const again = counting(ann({ quantization: 'f16' }));
    createMemoryVectorStore({ index: 'hnsw', ann: again, snapshot: copy.snapshot() });
    const reloaded = createMemoryVectorStore({
      index: 'hnsw',
      ann: again,
      snapshot: copy.snapshot(),
    });
    await reloaded.whenIndexed();
    expect(again.loaded).toBe(2);
    expect(again.added).toBe(0);
  });

  it('names the package in a ConfigError when usearch cannot be imported; the store stays exact', async () => {
    const missing = ann({ library: () => Promise.reject(new Error('Cannot find package')) });
    await expect(missing.create(4, 10)).rejects.toThrow(ConfigError);
    await expect(missing.create(4, 10)).rejects.toThrow(
      /cortexis\/usearch needs usearch .*npm install usearch/,
    );
    const errors: unknown[] = [];
    const store = createMemoryVectorStore({
      index: 'hnsw',
      ann: missing,
      onIndexError: (error) => errors.push(error),
    });
    await store.upsert('ns', [{ id: 'a', vector: [1, 0], metadata: {} }]);
    await store.whenIndexed();
    expect(errors[0]).toBeInstanceOf(ConfigError);
    expect(store.indexStats('ns').state).toBe('exact');
    expect((await store.query('ns', [1, 0], { k: 1 }))[0]?.id).toBe('a');
    await expect(ann({ library: {} as never }).create(4, 10)).rejects.toThrow(/no Index class/);
  });

  it('rejects invalid settings naming the setting', () => {
    expect(() => usearchAnn({ connectivity: 0 })).toThrow(ConfigError);
    expect(() => usearchAnn({ quantization: 'b1' as never })).toThrow(/quantization/);
    expect(() => usearchAnn({ batchSize: 1.5 })).toThrow(/batchSize/);
    expect(() => usearchAnn({ followWrites: 'yes' as never })).toThrow(/followWrites/);
    expect(() => createMemoryVectorStore({ ann: ann(), hnsw: { m: 8 } })).toThrow(ValidationError);
    expect(() => createMemoryVectorStore({ ann: { kind: 'x' } as never })).toThrow(/settings\.ann/);
  });
});
