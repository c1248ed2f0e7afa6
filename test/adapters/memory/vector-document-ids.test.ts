import { describe, expect, it } from 'vitest';
import { createSpace, matchingSlots, write } from '../../../src/adapters/memory/vector-space.js';
import { createMemoryVectorStore } from '../../../src/adapters/memory/vector-store.js';
import { compileFilter, matchesFilter } from '../../../src/query/filter.js';
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

/**
 * Checks that each filter finds exactly the records of `held` a full scan of their metadata
 * finds, in the order of the unfiltered query.
 */
async function expectLikeAScan(
  target: ReturnType<typeof createMemoryVectorStore>,
  namespace: string,
  held: ReadonlyMap<string, Metadata>,
  filters: readonly MetadataFilter[],
): Promise<void> {
  const probe = vectorOf(7);
  const k = held.size + 10;
  for (const filter of filters) {
    const expected = [...held].filter(([, metadata]) => matchesFilter(metadata, filter));
    const found = await target.query(namespace, probe, { k, filter });
    expect(found.map((match) => match.id).sort()).toEqual(expected.map(([id]) => id).sort());
    const all = await target.query(namespace, probe, { k });
    const order = all.filter((match) => expected.some(([id]) => id === match.id));
    expect(found.map((match) => match.id)).toEqual(order.map((match) => match.id));
  }
}

/**
 * {@link expectLikeAScan} on the store, on a store restored from its snapshot, and on that one
 * again after deleting by `deletion` (which must remove exactly the records it matches).
 */
async function expectLikeAScanThroughRestore(
  store: ReturnType<typeof createMemoryVectorStore>,
  namespace: string,
  held: Map<string, Metadata>,
  filters: readonly MetadataFilter[],
  deletion: MetadataFilter,
): Promise<void> {
  await expectLikeAScan(store, namespace, held, filters);
  const restored = createMemoryVectorStore({ index: 'exact' });
  restored.restore(store.snapshot());
  await expectLikeAScan(restored, namespace, held, filters);
  const doomed = [...held].filter(([, metadata]) => matchesFilter(metadata, deletion));
  expect(await restored.delete(namespace, { filter: deletion })).toBe(doomed.length);
  for (const [id] of doomed) held.delete(id);
  await expectLikeAScan(restored, namespace, held, filters);
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
    const filters: MetadataFilter[] = [
      { documentId: 'd1' },
      { documentId: { $eq: 3 } },
      { documentId: { $in: ['d1', 'd4', 3, 'absent'] }, revision: { $ne: 'r1' } },
      { documentId: { $in: [] } },
      { documentId: { $nin: ['d1'] } },
      { documentId: { $in: ['solo-1', 'solo-2', 'solo-3'] } },
    ];
    // Deleting by a documentId filter removes exactly those records.
    await expectLikeAScanThroughRestore(store, 'ns', held, filters, {
      documentId: { $in: ['d4'] },
    });
  });
});

/** A recall record's metadata (`pipeline/recall.ts`): 10 users, 3 sessions each. */
function messageMetadata(index: number): Metadata {
  const user = index % 10;
  return {
    userId: `u${user}`,
    sessionId: `s${user}-${index % 3}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    messageId: `m${index}`,
    text: `message ${index}`,
  };
}

describe('memory vector store: filters on sessionId and userId (recall) look their records up', () => {
  it("tests only the filtered session's or user's records, not every message stored", () => {
    const space = createSpace(8, 16, false);
    for (let index = 0; index < 600; index++) {
      write(space, { id: `m${index}`, vector: vectorOf(index), metadata: messageMetadata(index) });
    }
    const tested = (filter: MetadataFilter): number => {
      const compiled = compileFilter(filter);
      let calls = 0;
      matchingSlots(space, filter, (metadata) => {
        calls++;
        return compiled(metadata);
      });
      return calls;
    };
    // Recall's filters, scope `session` and scope `user` (600 messages: 20 per session, 60 per user).
    expect(tested({ userId: 'u4', sessionId: 's4-1', messageId: { $nin: ['m4'] } })).toBe(20);
    expect(tested({ userId: 'u4', messageId: { $nin: ['m4'] } })).toBe(60);
    // A filter on no indexed key still tests every record.
    expect(tested({ role: 'user' })).toBe(600);
  });

  it('finds exactly the records a full scan finds, after replaces, deletes and a restore', async () => {
    const store = createMemoryVectorStore({ index: 'exact' });
    const held = new Map<string, Metadata>();
    const upsert = async (id: string, metadata: Metadata, seed: number) => {
      held.set(id, metadata);
      await store.upsert('recall', [{ id, vector: vectorOf(seed), metadata }]);
    };
    for (let index = 0; index < 300; index++)
      await upsert(`m${index}`, messageMetadata(index), index);
    // Moved to another session and user, and one without either key.
    await upsert('m7', messageMetadata(8), 1000);
    await upsert('m9', { role: 'user', text: 'no owner' }, 1001);
    const deleted = ['m0', 'm13', 'm299', 'm42'];
    for (const id of deleted) held.delete(id);
    expect(await store.delete('recall', { ids: deleted })).toBe(deleted.length);
    const filters: MetadataFilter[] = [
      { userId: 'u8', sessionId: 's8-2', messageId: { $nin: ['m8', 'm38'] } },
      { userId: 'u3' },
      { sessionId: { $in: ['s1-0', 's2-1', 'absent'] }, role: 'assistant' },
      { sessionId: { $eq: 's7-1' } },
      { userId: { $in: [] } },
      { userId: { $nin: ['u1'] } },
      { userId: 'u7', sessionId: 's8-2' },
    ];
    // Recall's `forget`: deleting by a sessionId filter removes exactly that session's records.
    await expectLikeAScanThroughRestore(store, 'recall', held, filters, { sessionId: 's5-1' });
  });
});
