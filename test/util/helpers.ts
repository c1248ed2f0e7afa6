/** Small helpers shared by tests. */
import type { MessageRecord } from '../../src/ports/chat-records.js';
import type { MemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import type { VectorStore } from '../../src/ports/vector-store.js';

/** A small deterministic PRNG (mulberry32): the same seed gives the same sequence in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The `code` of the error a promise rejects with, or `'resolved'` when it does not reject. */
export async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'resolved';
}

/**
 * Stored message `index` of session `s1` (user `u1`): even indexes are the user's, odd ones the
 * assistant's, one second apart, content `message number <index>`.
 */
export function messageRecord(index: number, extra: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id: `m${index}`,
    sessionId: 's1',
    userId: 'u1',
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `message number ${index}`,
    status: 'complete',
    createdAt: `2026-01-01T00:00:${String(index).padStart(2, '0')}.000Z`,
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    ...extra,
  };
}

/** The store, waiting for its graph after every write, so a suite exercises the graph path. */
export function indexedAfterWrites(store: MemoryVectorStore): VectorStore {
  return {
    ...store,
    async upsert(namespace, records, options) {
      await store.upsert(namespace, records, options);
      await store.whenIndexed();
    },
    async delete(namespace, target, options) {
      const removed = await store.delete(namespace, target, options);
      await store.whenIndexed();
      return removed;
    },
  };
}

/** `count` vectors of `dimensions` components drawn uniformly from [-1, 1) (seeded). */
export function randomVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () =>
    Float32Array.from({ length: dimensions }, () => next() * 2 - 1),
  );
}

/** Share of the exact store's top `k` ids that the approximate store also returns, over the queries. */
export async function recallAgainst(
  approximate: VectorStore,
  exact: VectorStore,
  queries: readonly Float32Array[],
  k = 10,
): Promise<number> {
  let agree = 0;
  for (const query of queries) {
    const found = (await approximate.query('ns', query, { k })).map((match) => match.id);
    const truth = new Set((await exact.query('ns', query, { k })).map((match) => match.id));
    agree += found.filter((id) => truth.has(id)).length;
  }
  return agree / (queries.length * k);
}
