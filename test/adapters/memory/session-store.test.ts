import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../../src/adapters/memory/session-store.js';
import { ConflictError, ValidationError } from '../../../src/errors/index.js';
import type { MessageRecord, SessionRecord } from '../../../src/ports/chat-records.js';

function session(id: string, createdAt: string, userId = 'user-1'): SessionRecord {
  return {
    id,
    userId,
    title: null,
    status: 'active',
    createdAt,
    updatedAt: createdAt,
    endedAt: null,
    trajectoryId: null,
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
}

function message(id: string, owner: SessionRecord, createdAt: string): MessageRecord {
  return {
    id,
    sessionId: owner.id,
    userId: owner.userId,
    role: 'user',
    content: `message ${id}`,
    status: 'complete',
    createdAt,
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
  };
}

async function issuePath(action: () => Promise<unknown>): Promise<string | undefined> {
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ValidationError.isInstance(error)).toBe(true);
  return (error as ValidationError).issues[0]?.path;
}

describe('createMemorySessionStore', () => {
  it('moves updatedAt forward to the newest appended message, never back', async () => {
    const store = createMemorySessionStore();
    const owner = session('s1', '2024-01-01T00:00:00.000Z');
    await store.createSession(owner);
    await store.appendMessages('s1', [
      message('m1', owner, '2024-01-01T00:05:00.000Z'),
      message('m2', owner, '2024-01-01T00:06:00.000Z'),
    ]);
    expect((await store.getSession('s1'))?.updatedAt).toBe('2024-01-01T00:06:00.000Z');
    await store.updateSession('s1', { title: 'later', updatedAt: '2024-01-01T01:00:00.000Z' });
    await store.appendMessages('s1', [message('m3', owner, '2024-01-01T00:30:00.000Z')]);
    expect((await store.getSession('s1'))?.updatedAt).toBe('2024-01-01T01:00:00.000Z');
  });

  it('returns no cursor when the last page is exactly full', async () => {
    const store = createMemorySessionStore();
    await store.createSession(session('a', '2024-01-01T00:00:00.000Z'));
    await store.createSession(session('b', '2024-01-02T00:00:00.000Z'));
    const page = await store.listSessions({ userId: 'user-1', limit: 2 });
    expect(page.sessions.map((item) => item.id)).toEqual(['b', 'a']);
    expect(page.nextCursor).toBeNull();
  });

  it('pages through ids with any characters', async () => {
    const store = createMemorySessionStore();
    const ids = ['ß/ü+1', '日本=2', 'plain"3'];
    for (const id of ids) await store.createSession(session(id, '2024-01-01T00:00:00.000Z'));
    const first = await store.listSessions({ userId: 'user-1', limit: 1 });
    const rest = await store.listSessions({
      userId: 'user-1',
      limit: 5,
      cursor: first.nextCursor!,
    });
    expect([...first.sessions, ...rest.sessions].map((item) => item.id)).toEqual(
      [...ids].sort().reverse(),
    );
  });

  it('rejects a malformed cursor, a bad limit and a missing user id, naming the field', async () => {
    const store = createMemorySessionStore();
    expect(
      await issuePath(() => store.listSessions({ userId: 'u', limit: 5, cursor: 'nope' })),
    ).toBe('cursor');
    expect(await issuePath(() => store.listSessions({ userId: 'u', limit: 0 }))).toBe('limit');
    expect(await issuePath(() => store.listSessions({ userId: '', limit: 5 }))).toBe('userId');
    expect(await issuePath(() => store.listMessages('s', { offset: -1 }))).toBe('offset');
    expect(
      await issuePath(() => store.createSession(session('x', '2024-01-01T00:00:00.000Z', ''))),
    ).toBe('session.userId');
  });

  it('rejects messages naming another session or owner, and bad stats, applying nothing', async () => {
    const store = createMemorySessionStore();
    const owner = session('s1', '2024-01-01T00:00:00.000Z');
    const other = session('s2', '2024-01-01T00:00:00.000Z', 'user-2');
    await store.createSession(owner);
    const good = message('m1', owner, '2024-01-01T00:01:00.000Z');
    expect(
      await issuePath(() =>
        store.appendMessages('s1', [good, message('m2', other, good.createdAt)]),
      ),
    ).toBe('messages.1.sessionId');
    expect(
      await issuePath(() =>
        store.appendMessages('s1', [
          good,
          { ...message('m2', owner, good.createdAt), userId: 'user-2' },
        ]),
      ),
    ).toBe('messages.1.userId');
    expect(
      await issuePath(() => store.appendMessages('s1', [good], { searchMs: -1, generationMs: 0 })),
    ).toBe('stats.searchMs');
    expect(await store.countMessages('s1')).toBe(0);
    expect((await store.getSession('s1'))?.stats.messageCount).toBe(0);
  });

  it('rejects a message id already used in another session', async () => {
    const store = createMemorySessionStore();
    const first = session('s1', '2024-01-01T00:00:00.000Z');
    const second = session('s2', '2024-01-01T00:00:00.000Z');
    await store.createSession(first);
    await store.createSession(second);
    await store.appendMessages('s1', [message('m1', first, '2024-01-01T00:01:00.000Z')]);
    await expect(
      store.appendMessages('s2', [message('m1', second, '2024-01-01T00:01:00.000Z')]),
    ).rejects.toThrow(ConflictError);
    expect((await store.getMessage('m1'))?.sessionId).toBe('s1');
  });

  it('applies stats of an empty batch', async () => {
    const store = createMemorySessionStore();
    await store.createSession(session('s1', '2024-01-01T00:00:00.000Z'));
    await store.appendMessages('s1', [], { searchMs: 3, generationMs: 7 });
    expect((await store.getSession('s1'))?.stats).toEqual({
      messageCount: 0,
      totalSearchMs: 3,
      totalGenerationMs: 7,
    });
  });

  it('hands out deep-frozen records', async () => {
    const store = createMemorySessionStore();
    const owner = { ...session('s1', '2024-01-01T00:00:00.000Z'), settings: { topK: 3 } };
    await store.createSession(owner);
    await store.appendMessages('s1', [message('m1', owner, '2024-01-01T00:01:00.000Z')]);
    const loaded = await store.getSession('s1');
    expect(Object.isFrozen(loaded)).toBe(true);
    expect(Object.isFrozen(loaded?.settings)).toBe(true);
    expect(Object.isFrozen(loaded?.stats)).toBe(true);
    const [stored] = await store.listMessages('s1');
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored?.sources)).toBe(true);
  });

  it('reports its name from the settings', () => {
    expect(createMemorySessionStore().name).toBe('memory');
    expect(createMemorySessionStore({ name: 'sessions' }).name).toBe('sessions');
  });
});

describe('createMemorySessionStore on a long session', () => {
  /** A session of `turns` question/answer pairs, then a summary over all but the last 2 turns. */
  async function longSession(turns: number) {
    const store = createMemorySessionStore();
    const owner = session('long', '2024-01-01T00:00:00.000Z');
    await store.createSession(owner);
    const at = (n: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, n)).toISOString();
    const ids: string[] = [];
    for (let turn = 0; turn < turns; turn++) {
      const question = { ...message(`q${turn}`, owner, at(2 * turn)), requestId: `r${turn}` };
      const answer: MessageRecord = {
        ...message(`a${turn}`, owner, at(2 * turn + 1)),
        role: 'assistant',
        replyTo: `q${turn}`,
      };
      await store.appendMessages('long', [question, answer]);
      ids.push(question.id, answer.id);
    }
    const summary: MessageRecord = {
      ...message('sum', owner, at(2 * turns)),
      role: 'system-summary',
      covers: ids.slice(0, ids.length - 4),
    };
    await store.appendSummary('long', summary);
    return { store, owner, at };
  }

  /** Calls of `Map.prototype.get` (message lookups) while `action` runs. */
  async function mapLookups(action: () => Promise<unknown>): Promise<number> {
    const get = Map.prototype.get;
    let calls = 0;
    Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
      calls++;
      return get.call(this, key);
    };
    try {
      await action();
    } finally {
      Map.prototype.get = get;
    }
    return calls;
  }

  it('counts a role and lists the uncovered messages without walking the whole history', async () => {
    const { store } = await longSession(500);
    expect(await store.countMessages('long', { role: 'user' })).toBe(500);
    expect(await store.countMessages('long', { role: 'assistant' })).toBe(500);
    expect(await store.countMessages('long', { role: 'system-summary' })).toBe(1);
    expect(await store.countMessages('long')).toBe(1001);
    const uncovered = await store.listMessages('long', { uncoveredOnly: true });
    expect(uncovered.map((m) => m.id)).toEqual(['q498', 'a498', 'q499', 'a499', 'sum']);
    const newest = await store.listMessages('long', {
      uncoveredOnly: true,
      order: 'desc',
      limit: 2,
      offset: 1,
    });
    expect(newest.map((m) => m.id)).toEqual(['a499', 'q499']);
    expect((await store.listMessages('long')).length).toBe(1001);

    expect(await mapLookups(() => store.countMessages('long', { role: 'user' }))).toBeLessThan(10);
    expect(
      await mapLookups(() => store.listMessages('long', { uncoveredOnly: true })),
    ).toBeLessThan(20);
  });

  it('checks idempotency keys without walking the history, and still names the conflict', async () => {
    const { store, owner, at } = await longSession(500);
    const fresh = { ...message('q-new', owner, at(5_000)), requestId: 'r-new' };
    expect(await mapLookups(() => store.appendMessages('long', [fresh]))).toBeLessThan(20);
    const taken = await store
      .appendMessages('long', [{ ...message('q-again', owner, at(5_001)), requestId: 'r3' }])
      .catch((error: unknown) => error);
    expect(ConflictError.isInstance(taken)).toBe(true);
    const again: MessageRecord = {
      ...message('a-again', owner, at(5_002)),
      role: 'assistant',
      replyTo: 'q7',
    };
    const answered = await store.appendMessages('long', [again]).catch((error: unknown) => error);
    expect(ConflictError.isInstance(answered)).toBe(true);
    expect(String((answered as Error).message)).toContain('q7');
    // A covered message's summary must name messages of this session.
    const foreign = createMemorySessionStore();
    await foreign.createSession(session('other', '2024-01-01T00:00:00.000Z'));
    const bad = await foreign
      .appendSummary('other', {
        ...message('s2', session('other', '2024-01-01T00:00:00.000Z'), at(9)),
        role: 'system-summary',
        covers: ['q1'],
      })
      .catch((error: unknown) => error);
    expect((bad as Error).name).toBe('NotFoundError');
  });
});
