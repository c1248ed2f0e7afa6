/**
 * Load on the in-memory store: 200 concurrent turns over 20 sessions keep exact per-session
 * order and counts with eviction configured (SQLite and Postgres run the same load in
 * test/adapters/concurrency.test.ts), and 10,000 idle sessions stay within a memory bound —
 * unbounded by default, bounded by `maxSessions` (LRU) and `idleTtlMs`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createChatEngine } from '../../src/engine.js';
import { ConfigError, NotFoundError } from '../../src/errors/index.js';
import type { MessageRecord, SessionRecord } from '../../src/ports/chat-records.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { handbook } from '../fixtures/handbook.js';
import { recordFigures } from './figures.js';

const IDLE_SESSIONS = 10_000;
/** The documented bound for 10,000 idle sessions of one exchange each (docs/reliability.md). */
const IDLE_HEAP_BOUND_MB = 100;

function sessionRecord(id: string, userId: string, at: string): SessionRecord {
  return {
    id,
    userId,
    title: null,
    status: 'active',
    createdAt: at,
    updatedAt: at,
    endedAt: null,
    trajectoryId: null,
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
}

function messageRecord(
  id: string,
  session: SessionRecord,
  role: 'user' | 'assistant',
  content: string,
): MessageRecord {
  return {
    id,
    sessionId: session.id,
    userId: session.userId,
    role,
    content,
    status: 'complete',
    createdAt: session.createdAt,
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
  };
}

/** Adds `count` sessions, each with one user question and one answer (an idle conversation). */
async function fillIdle(store: SessionStore, count: number, prefix = 's'): Promise<void> {
  const at = new Date(0).toISOString();
  for (let index = 0; index < count; index++) {
    const session = sessionRecord(`${prefix}${index}`, `user${index % 100}`, at);
    await store.createSession(session);
    await store.appendMessages(session.id, [
      messageRecord(
        `${prefix}m${index}-q`,
        session,
        'user',
        `Question ${index}: how long does shipping take?`,
      ),
      messageRecord(
        `${prefix}m${index}-a`,
        session,
        'assistant',
        `Answer ${index}: standard shipping takes 3 to 5 business days [source: S1].`,
      ),
    ]);
  }
}

/** A full garbage collection, when the runtime lets us ask for one. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
  gc?.();
}

describe('load on the in-memory session store', () => {
  it('200 concurrent turns over 20 sessions: exact per-session order and counts', async () => {
    const sessionStore = createMemorySessionStore({ maxSessions: 1_000, idleTtlMs: 600_000 });
    const engine = createChatEngine({ sessionStore });
    await engine.ingest(handbook);
    const userId = 'user-load';
    const sessions = await Promise.all(
      Array.from({ length: 20 }, () => engine.createSession({ userId })),
    );
    const message = (session: number, turn: number) =>
      `session ${session} turn ${turn}: how long does shipping take?`;
    const started = Date.now();
    const turns = [];
    for (let turn = 0; turn < 10; turn++) {
      for (const [index, session] of sessions.entries()) {
        turns.push(engine.chat({ sessionId: session.id, userId, message: message(index, turn) }));
      }
    }
    const settled = await Promise.allSettled(turns);
    const elapsedMs = Date.now() - started;
    expect(settled.filter((result) => result.status === 'rejected')).toEqual([]);
    for (const [index, session] of sessions.entries()) {
      const stored = await sessionStore.listMessages(session.id);
      expect(stored.map((record) => record.role)).toEqual(
        Array.from({ length: 10 }, () => ['user', 'assistant']).flat(),
      );
      expect(
        stored.filter((record) => record.role === 'user').map((record) => record.content),
      ).toEqual(Array.from({ length: 10 }, (_, turn) => message(index, turn)));
      expect((await sessionStore.getSession(session.id))?.stats.messageCount).toBe(20);
    }
    recordFigures('load-memory-200-turns', { turns: 200, sessions: 20, failed: 0, elapsedMs });
  }, 30_000);

  it('maxSessions 5,000: 10,000 sessions keep the 5,000 most recently used, messages included', async () => {
    const store = createMemorySessionStore({ maxSessions: 5_000 });
    await fillIdle(store, 5_000, 's');
    // Using the oldest session keeps it: the least recently used one goes instead.
    expect(await store.getSession('s0')).not.toBeNull();
    await fillIdle(store, 1, 't');
    expect(await store.getSession('s1')).toBeNull();
    expect(await store.getMessage('sm1-q')).toBeNull();
    expect(await store.listMessages('s1')).toEqual([]);
    expect(await store.getSession('s0')).not.toBeNull();
    await expect(
      store.appendMessages('s1', [
        messageRecord(
          'late',
          sessionRecord('s1', 'user1', new Date(0).toISOString()),
          'user',
          'hi',
        ),
      ]),
    ).rejects.toBeInstanceOf(NotFoundError);
    // 10,000 sessions in all. Use order is now s2…s4999, t0, s0: those 4,999 make room.
    await fillIdle(store, 4_999, 'u');
    let kept = 0;
    for (let index = 0; index < 5_000; index++) if (await store.getSession(`s${index}`)) kept++;
    for (let index = 0; index < 4_999; index++) {
      if ((await store.listMessages(`u${index}`)).length === 2) kept++;
    }
    expect(kept).toBe(5_000);
    expect(await store.getSession('s0')).not.toBeNull();
    expect(await store.getSession('t0')).toBeNull();
    expect(await store.getMessage('tm0-q')).toBeNull();
    recordFigures('memory-store-lru', { created: IDLE_SESSIONS, maxSessions: 5_000, kept });
  }, 30_000);

  it('idleTtlMs evicts sessions untouched for longer, keeps the ones in use', async () => {
    let now = 1_000_000;
    const store = createMemorySessionStore({ idleTtlMs: 60_000, now: () => now });
    await fillIdle(store, 3);
    now += 59_000;
    expect(await store.countMessages('s1')).toBe(2); // used: its idle time restarts
    now += 2_000;
    expect(await store.getSession('s0')).toBeNull();
    expect(await store.getMessage('m0-q')).toBeNull();
    expect(await store.getSession('s2')).toBeNull();
    expect(await store.getSession('s1')).not.toBeNull();
    now += 60_001;
    expect(await store.listMessages('s1')).toEqual([]);
  });

  it('rejects invalid eviction settings with a ConfigError naming the field', () => {
    expect(() => createMemorySessionStore({ maxSessions: 0 })).toThrow(ConfigError);
    expect(() => createMemorySessionStore({ maxSessions: 1.5 })).toThrow(/maxSessions/);
    expect(() => createMemorySessionStore({ idleTtlMs: -1 })).toThrow(/idleTtlMs/);
    expect(() => createMemorySessionStore({ idleTtlMs: Number.NaN })).toThrow(ConfigError);
  });

  it(`${IDLE_SESSIONS.toLocaleString('en')} idle sessions stay under ${IDLE_HEAP_BOUND_MB} MB of heap`, async () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const unbounded = createMemorySessionStore();
    await fillIdle(unbounded, IDLE_SESSIONS);
    collectGarbage();
    const unboundedMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
    expect(await unbounded.getSession(`s${IDLE_SESSIONS - 1}`)).not.toBeNull();

    const bounded = createMemorySessionStore({ maxSessions: 1_000 });
    collectGarbage();
    const beforeBounded = process.memoryUsage().heapUsed;
    await fillIdle(bounded, IDLE_SESSIONS);
    collectGarbage();
    const boundedMb = (process.memoryUsage().heapUsed - beforeBounded) / 1024 / 1024;

    recordFigures('memory-store-idle-heap', {
      sessions: IDLE_SESSIONS,
      messagesPerSession: 2,
      heapGrowthMbUnbounded: Number(unboundedMb.toFixed(1)),
      heapGrowthMbMaxSessions1000: Number(boundedMb.toFixed(1)),
      boundMb: IDLE_HEAP_BOUND_MB,
    });
    expect(unboundedMb).toBeLessThan(IDLE_HEAP_BOUND_MB);
    expect(boundedMb).toBeLessThan(IDLE_HEAP_BOUND_MB);
  }, 60_000);
});
