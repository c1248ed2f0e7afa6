import { describe, expect, it } from 'vitest';

import { createMemoryVectorStore } from '../../../src/adapters/memory/vector-store.js';
import { AbortError, ValidationError } from '../../../src/errors/index.js';

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
