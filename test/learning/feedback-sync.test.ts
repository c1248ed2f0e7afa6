import { describe, expect, it } from 'vitest';
import { createChatEngine } from 'cortexis';
import { FEEDBACK_PAGE_LIMIT } from '../../src/learning/feedback.js';
import { createFeedbackSync } from '../../src/learning/feedback-sync.js';
import { createMemoryLearningSink } from '../../src/adapters/memory/learning-sink.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import type { FeedbackRecord } from '../../src/ports/chat-records.js';
import type { FeedbackQuery } from '../../src/ports/learning-sink.js';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');

function record(id: string, atMs: number): FeedbackRecord {
  return {
    id,
    messageId: `m-${id}`,
    sessionId: 's',
    userId: 'u',
    rating: 'good',
    sourceHelpfulness: null,
    comment: null,
    markedAsFactual: null,
    correctedContent: null,
    reward: 1,
    createdAt: new Date(atMs).toISOString(),
  };
}

/** A sink over an array, answering `since` queries like the real ones (oldest first, paged). */
function arraySink(records: FeedbackRecord[]) {
  const queries: string[] = [];
  return {
    queries,
    async listFeedback(query: FeedbackQuery): Promise<FeedbackRecord[]> {
      if (!('since' in query)) throw new Error('only since queries are expected');
      queries.push(query.since);
      return records
        .filter((r) => r.createdAt >= query.since)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
        .slice(0, FEEDBACK_PAGE_LIMIT);
    },
  };
}

describe('createFeedbackSync', () => {
  it('learns every stored record once, skipping the ones this process learned itself', async () => {
    const stored = [record('a', T0), record('b', T0 + 1000)];
    const sink = arraySink(stored);
    const learned: string[] = [];
    let clock = T0 + 5000;
    const sync = createFeedbackSync({
      sink,
      learn: async (r) => learned.push(r.id),
      intervalMs: 10_000,
      now: () => clock,
    });
    await sync.pull();
    expect(learned).toEqual(['a', 'b']);

    // Recorded here (already learned), then by another instance.
    const local = record('c', T0 + 6000);
    sync.noteLearned(local);
    stored.push(local, record('d', T0 + 7000));

    sync.pullIfDue(); // 5 s after the last pull: not due
    await sync.settled();
    expect(learned).toEqual(['a', 'b']);

    clock += 10_000;
    sync.pullIfDue();
    await sync.settled();
    expect(learned).toEqual(['a', 'b', 'd']);
    // The second pull started from the newest record known (c) minus the lookback, not 1970.
    expect(sink.queries.at(-1)).toBe(new Date(T0 + 6000 - 60_000).toISOString());
  });

  it('picks up a record committed late with an earlier time, within the lookback', async () => {
    const stored = [record('a', T0 + 30_000)];
    const learned: string[] = [];
    let clock = T0 + 40_000;
    const sync = createFeedbackSync({
      sink: arraySink(stored),
      learn: async (r) => learned.push(r.id),
      intervalMs: 1000,
      lookbackMs: 20_000,
      now: () => clock,
    });
    await sync.pull();
    stored.push(record('late', T0 + 15_000), record('too-late', T0 + 5000));
    clock += 1000;
    sync.pullIfDue();
    await sync.settled();
    // 'late' is 15 s before the newest record (inside 20 s); 'too-late' is 25 s before.
    expect(learned).toEqual(['a', 'late']);
  });

  it('reads past a full page', async () => {
    const stored = Array.from({ length: FEEDBACK_PAGE_LIMIT + 5 }, (_, i) =>
      record(`r${String(i).padStart(6, '0')}`, T0 + i),
    );
    let count = 0;
    const sync = createFeedbackSync({
      sink: arraySink(stored),
      learn: async () => count++,
      intervalMs: 0,
    });
    await sync.pull();
    expect(count).toBe(FEEDBACK_PAGE_LIMIT + 5);
  });

  it('never pulls again with intervalMs 0, and shares one pull between callers', async () => {
    const sink = arraySink([record('a', T0)]);
    let clock = T0;
    const sync = createFeedbackSync({
      sink,
      learn: async () => undefined,
      intervalMs: 0,
      now: () => clock,
    });
    const first = sync.pull();
    expect(sync.pull()).toBe(first);
    await first;
    clock += 1e9;
    sync.pullIfDue();
    await sync.settled();
    expect(sink.queries).toHaveLength(1);
  });

  it('reports a failed pull and tries again from the same point when next due', async () => {
    const stored = [record('a', T0)];
    const sink = arraySink(stored);
    let fail = true;
    const errors: unknown[] = [];
    const learned: string[] = [];
    let clock = T0;
    const sync = createFeedbackSync({
      sink: {
        listFeedback: async (query) => {
          if (fail) throw new Error('database is down');
          return sink.listFeedback(query);
        },
      },
      learn: async (r) => learned.push(r.id),
      intervalMs: 1000,
      now: () => clock,
      onError: (error) => errors.push(error),
    });
    sync.pullIfDue();
    await sync.settled();
    expect(errors).toHaveLength(1);
    fail = false;
    clock += 1000;
    sync.pullIfDue();
    await sync.settled();
    expect(learned).toEqual(['a']);
  });
});

describe('engine: feedback given on another instance reaches this one', () => {
  it('a shared sink updates the learned boost of a second engine after its sync interval', async () => {
    const sessionStore = createMemorySessionStore();
    const learningSink = createMemoryLearningSink();
    const docs = [
      { id: 'reset', text: 'To reset your password open Settings and choose Reset password.' },
      { id: 'passkey', text: 'Passkeys replace your password: open Settings, then Passkeys.' },
    ];
    const shared = { sessionStore, learningSink, learning: { syncIntervalMs: 1000 } };
    const a = createChatEngine(shared);
    const b = createChatEngine(shared);
    await a.ingest(docs);
    await b.ingest(docs);
    const before = await b.search('how do I reset my password');
    expect(before[0]?.learnedBoost ?? 1).toBe(1);

    const session = await a.createSession({ userId: 'u1' });
    const reply = await a.chat({ sessionId: session.id, message: 'how do I reset my password' });
    const label = reply.sources[0]!.id;
    const chunkId = reply.sources[0]!.chunkId;
    await a.feedback({
      messageId: reply.messageId,
      userId: 'u1',
      rating: 'good',
      sourceHelpfulness: { [label]: 1 },
    });

    // Not due yet on B: its boost is unchanged.
    await b.search('how do I reset my password');
    await b.flush();
    const stale = await b.search('how do I reset my password');
    expect(stale.find((s) => s.chunkId === chunkId)?.learnedBoost ?? 1).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    await b.search('how do I reset my password'); // starts the pull
    await b.flush();
    const after = await b.search('how do I reset my password');
    expect(after.find((s) => s.chunkId === chunkId)?.learnedBoost).toBeGreaterThan(1);
  });
});
