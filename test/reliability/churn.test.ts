/**
 * Memory bounded by `maxSessions` (issue 14, item 9): a memory session store reports the
 * sessions it evicts (LRU or idle expiry), and the engine deletes their recall records and
 * learning records, so that under churn from many users every store stays within the bound —
 * record counts, not timings (the heap figures come from `npm run bench:churn`).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryLearningSink } from '../../src/adapters/memory/learning-sink.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createChatEngine } from '../../src/engine.js';
import { ValidationError } from '../../src/errors/index.js';
import { recallNamespace } from '../../src/pipeline/recall.js';
import type { SessionRecord } from '../../src/ports/chat-records.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { handbook } from '../fixtures/handbook.js';

const EPOCH = '1970-01-01T00:00:00.000Z';

function sessionRecord(id: string): SessionRecord {
  return {
    id,
    userId: `user-${id}`,
    title: null,
    status: 'active',
    createdAt: EPOCH,
    updatedAt: EPOCH,
    endedAt: null,
    trajectoryId: null,
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
}

describe('memory session store: onEvict', () => {
  it('reports sessions evicted by maxSessions (least recently used first), not deletes', async () => {
    const store = createMemorySessionStore({ maxSessions: 2 });
    const reports: string[][] = [];
    const stop = store.onEvict!((ids) => reports.push([...ids]));
    await store.createSession(sessionRecord('a'));
    await store.createSession(sessionRecord('b'));
    await store.getSession('a'); // a is now used more recently than b
    await store.createSession(sessionRecord('c'));
    expect(reports).toEqual([['b']]);
    expect(await store.deleteSession('a')).toBe(true);
    expect(reports).toEqual([['b']]);
    stop();
    await store.createSession(sessionRecord('d'));
    await store.createSession(sessionRecord('e'));
    expect(reports).toEqual([['b']]);
  });

  it('reports sessions evicted by idleTtlMs, oldest first, in one call', async () => {
    let clock = 0;
    const store = createMemorySessionStore({ idleTtlMs: 1_000, now: () => clock });
    const reports: string[][] = [];
    store.onEvict!((ids) => reports.push([...ids]));
    await store.createSession(sessionRecord('a'));
    clock = 10;
    await store.createSession(sessionRecord('b'));
    clock = 500;
    await store.createSession(sessionRecord('c'));
    clock = 1_200;
    expect(await store.getSession('c')).not.toBeNull();
    expect(reports).toEqual([['a', 'b']]);
  });

  it('keeps working when a listener throws, and rejects a listener that is no function', async () => {
    const store = createMemorySessionStore({ maxSessions: 1 });
    const reports: string[][] = [];
    store.onEvict!(() => {
      throw new Error('listener failed');
    });
    store.onEvict!((ids) => reports.push([...ids]));
    await store.createSession(sessionRecord('a'));
    await store.createSession(sessionRecord('b'));
    expect(await store.getSession('b')).not.toBeNull();
    expect(reports).toEqual([['a']]);
    expect(() => store.onEvict!('nope' as never)).toThrow(ValidationError);
  });
});

/** Runs one turn (and feedback on every third) for each of `users` new users. */
async function churn(options: {
  readonly users: number;
  readonly sessionStore: SessionStore;
  readonly advance?: () => void;
}) {
  const vectorStore = createMemoryVectorStore();
  const learningSink = createMemoryLearningSink();
  const engine = createChatEngine({
    llm: createMockLLM({ responses: 'Refunds are issued within 14 days [source: S1].' }),
    vectorStore,
    sessionStore: options.sessionStore,
    learningSink,
    retrieval: { minSimilarity: 0 }, // answers, not guard replies: both messages are recalled
  });
  await engine.ingest(handbook);
  const trajectories = new Set<string>();
  engine.on('learning', (event) => trajectories.add(event.trajectoryId));
  const errors: unknown[] = [];
  engine.on('error', (event) => errors.push(event.error));
  const sessions: string[] = [];
  for (let index = 0; index < options.users; index++) {
    options.advance?.();
    const userId = `user-${index}`;
    const session = await engine.createSession({ userId });
    sessions.push(session.id);
    const reply = await engine.chat({
      sessionId: session.id,
      userId,
      message: `Question ${index}: how long do refunds take?`,
    });
    if (index % 3 === 0) {
      await engine.feedback({ messageId: reply.messageId, userId, rating: 'good' });
    }
  }
  await engine.flush();
  let liveTrajectories = 0;
  for (const id of trajectories) if (await learningSink.getTrajectory(id)) liveTrajectories++;
  const live: string[] = [];
  for (const id of sessions) {
    if (await options.sessionStore.getSession(id)) live.push(id);
  }
  return {
    errors,
    live,
    trajectories: trajectories.size,
    liveTrajectories,
    recallRecords: await vectorStore.count(recallNamespace('default')),
    feedback: (await learningSink.listFeedback({ since: EPOCH })).length,
    liveFeedback: (
      await Promise.all(live.map((sessionId) => learningSink.listFeedback({ sessionId })))
    ).flat().length,
  };
}

describe('engine under churn: every store stays within the session bound', () => {
  it('maxSessions 20, 150 users: recall records, trajectories and feedback of 20 sessions', async () => {
    const result = await churn({
      users: 150,
      sessionStore: createMemorySessionStore({ maxSessions: 20 }),
    });
    expect(result.errors).toEqual([]);
    expect(result.trajectories).toBe(150);
    expect(result.live).toHaveLength(20);
    // One question and one answer per live session, nothing of the 130 evicted ones.
    expect(result.recallRecords).toBe(2 * 20);
    expect(result.liveTrajectories).toBe(20);
    expect(result.feedback).toBe(result.liveFeedback);
    expect(result.feedback).toBeLessThanOrEqual(7);
  }, 60_000);

  it('idleTtlMs: idle sessions take their recall and learning records with them', async () => {
    let clock = 0;
    const result = await churn({
      users: 60,
      // Each user comes 100 ms after the previous one; sessions idle for 1 s expire.
      sessionStore: createMemorySessionStore({ idleTtlMs: 1_000, now: () => clock }),
      advance: () => (clock += 100),
    });
    expect(result.errors).toEqual([]);
    expect(result.live.length).toBeLessThanOrEqual(11);
    expect(result.recallRecords).toBe(2 * result.live.length);
    expect(result.liveTrajectories).toBe(result.live.length);
    expect(result.feedback).toBe(result.liveFeedback);
  }, 60_000);
});
