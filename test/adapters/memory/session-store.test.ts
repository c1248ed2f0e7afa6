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
