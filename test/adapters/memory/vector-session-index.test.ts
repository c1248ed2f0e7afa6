import { describe, expect, it } from 'vitest';
import { createMemoryVectorStore } from '../../../src/adapters/memory/vector-store.js';
import { createSpace, matchingSlots, write } from '../../../src/adapters/memory/vector-space.js';
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
    const probe = vectorOf(7);
    const filters: MetadataFilter[] = [
      { userId: 'u8', sessionId: 's8-2', messageId: { $nin: ['m8', 'm38'] } },
      { userId: 'u3' },
      { sessionId: { $in: ['s1-0', 's2-1', 'absent'] }, role: 'assistant' },
      { sessionId: { $eq: 's7-1' } },
      { userId: { $in: [] } },
      { userId: { $nin: ['u1'] } },
      { userId: 'u7', sessionId: 's8-2' },
    ];
    const check = async (target: ReturnType<typeof createMemoryVectorStore>) => {
      for (const filter of filters) {
        const expected = [...held].filter(([, metadata]) => matchesFilter(metadata, filter));
        const found = await target.query('recall', probe, { k: 400, filter });
        expect(found.map((match) => match.id).sort()).toEqual(expected.map(([id]) => id).sort());
        const all = await target.query('recall', probe, { k: 400 });
        const order = all.filter((match) => expected.some(([id]) => id === match.id));
        expect(found.map((match) => match.id)).toEqual(order.map((match) => match.id));
      }
    };
    await check(store);
    const restored = createMemoryVectorStore({ index: 'exact' });
    restored.restore(store.snapshot());
    await check(restored);
    // Recall's `forget`: deleting by a sessionId filter removes exactly that session's records.
    const doomed = [...held].filter(([, metadata]) => metadata.sessionId === 's5-1');
    expect(await restored.delete('recall', { filter: { sessionId: 's5-1' } })).toBe(doomed.length);
    for (const [id] of doomed) held.delete(id);
    await check(restored);
  });
});
