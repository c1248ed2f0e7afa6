import { describe, expect, it } from 'vitest';
import { createMemoryVectorStore } from '../../../src/adapters/memory/vector-store.js';
import { matchesFilter } from '../../../src/query/filter.js';
import type { Metadata, MetadataFilter } from '../../../src/ports/common.js';

/** A random 8-d vector from a seeded generator. */
function vectorOf(seed: number): Float32Array {
  const vector = new Float32Array(8);
  let state = seed * 2654435761;
  for (let d = 0; d < 8; d++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    vector[d] = (state / 2 ** 32) * 2 - 1;
  }
  return vector;
}

describe('memory vector store: filters on documentId after writes, replaces, deletes, restores', () => {
  it('finds exactly the records a full scan of the metadata finds, in the same order', async () => {
    const store = createMemoryVectorStore({ index: 'exact' });
    const held = new Map<string, Metadata>();
    const upsert = async (id: string, documentId: string | number | undefined, seed: number) => {
      const metadata: Metadata = {
        ...(documentId === undefined ? {} : { documentId }),
        revision: `r${seed % 3}`,
      };
      held.set(id, metadata);
      await store.upsert('ns', [{ id, vector: vectorOf(seed), metadata }]);
    };
    for (let index = 0; index < 60; index++) await upsert(`c${index}`, `d${index % 7}`, index);
    await upsert('n1', 3, 100);
    await upsert('n2', undefined, 101);
    // Documents of one record each: one moved to another document, one deleted, one kept.
    await upsert('s1', 'solo-1', 104);
    await upsert('s2', 'solo-2', 105);
    await upsert('s3', 'solo-3', 106);
    await upsert('s1', 'solo-3', 107);
    // Replaced under another document, and deleted (each delete moves the last row).
    await upsert('c5', 'd1', 102);
    await upsert('c6', 3, 103);
    for (const id of ['c0', 'c13', 'c59', 's2']) held.delete(id);
    expect(await store.delete('ns', { ids: ['c0', 'c13', 'c59', 's2'] })).toBe(4);
    const probe = vectorOf(7);
    const filters: MetadataFilter[] = [
      { documentId: 'd1' },
      { documentId: { $eq: 3 } },
      { documentId: { $in: ['d1', 'd4', 3, 'absent'] }, revision: { $ne: 'r1' } },
      { documentId: { $in: [] } },
      { documentId: { $nin: ['d1'] } },
      { documentId: { $in: ['solo-1', 'solo-2', 'solo-3'] } },
    ];
    const check = async (target: ReturnType<typeof createMemoryVectorStore>) => {
      for (const filter of filters) {
        const expected = [...held].filter(([, metadata]) => matchesFilter(metadata, filter));
        const found = await target.query('ns', probe, { k: 100, filter });
        expect(found.map((match) => match.id).sort()).toEqual(expected.map(([id]) => id).sort());
        const all = await target.query('ns', probe, { k: 100 });
        const order = all.filter((match) => expected.some(([id]) => id === match.id));
        expect(found.map((match) => match.id)).toEqual(order.map((match) => match.id));
      }
    };
    await check(store);
    const restored = createMemoryVectorStore({ index: 'exact' });
    restored.restore(store.snapshot());
    await check(restored);
    // Deleting by a documentId filter removes exactly those records.
    const doomed = [...held].filter(([, metadata]) => metadata.documentId === 'd4');
    expect(await restored.delete('ns', { filter: { documentId: { $in: ['d4'] } } })).toBe(
      doomed.length,
    );
    for (const [id] of doomed) held.delete(id);
    await check(restored);
  });
});
