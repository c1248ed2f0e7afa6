/**
 * Ids are opaque (issue 14 item 7): compared exactly, never trimmed or normalised, so an
 * `authenticate` that returns 'alice\u00a0' is not alice; ids that are blank or hold control or
 * separator characters are rejected with a `ValidationError` naming the field.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createChatEngine,
  NotFoundError,
  ValidationError,
  type ChatEngine,
} from '../../src/index.js';
import { createChatHandler } from '../../src/http/index.js';

/** Look-alikes of 'alice' that are other, valid ids. */
const LOOK_ALIKES = ['alice\u00a0', ' alice', '\u3000alice', 'alice\u200b', 'Alice'];
/** Ids no user may have: blank, or with control or separator characters. */
const INVALID = [
  '',
  ' ',
  '\u3000\u00a0',
  '\u3000alice\u2028',
  'alice\n',
  'al\u0000ice',
  'alice\u0085',
];

let engine: ChatEngine;
let aliceSession: string;

beforeEach(async () => {
  engine = createChatEngine();
  aliceSession = (await engine.createSession({ userId: 'alice', title: 'private' })).id;
});

describe('ids through the engine', () => {
  it('a look-alike user id neither reads nor lists alice’s conversations', async () => {
    for (const userId of LOOK_ALIKES) {
      expect((await engine.listSessions({ userId })).sessions, JSON.stringify(userId)).toEqual([]);
      await expect(engine.getSession({ sessionId: aliceSession, userId })).rejects.toSatisfy(
        NotFoundError.isInstance,
      );
      await expect(
        engine.history({ sessionId: aliceSession, userId }),
        JSON.stringify(userId),
      ).rejects.toSatisfy(NotFoundError.isInstance);
    }
    expect((await engine.listSessions({ userId: 'alice' })).sessions).toHaveLength(1);
  });

  it('keeps an id exactly as given: a look-alike owns its own conversations', async () => {
    const session = await engine.createSession({ userId: 'alice\u00a0' });
    expect(session.userId).toBe('alice\u00a0');
    const listed = await engine.listSessions({ userId: 'alice\u00a0' });
    expect(listed.sessions.map((item) => item.id)).toEqual([session.id]);
    await expect(engine.getSession({ sessionId: session.id, userId: 'alice' })).rejects.toSatisfy(
      NotFoundError.isInstance,
    );
  });

  it('rejects blank ids and ids with control or separator characters, naming the field', async () => {
    for (const userId of INVALID) {
      const label = JSON.stringify(userId);
      const created = engine.createSession({ userId });
      await expect(created, label).rejects.toSatisfy(ValidationError.isInstance);
      await expect(created, label).rejects.toMatchObject({
        issues: [expect.objectContaining({ path: 'userId' })],
      });
      await expect(engine.listSessions({ userId }), label).rejects.toSatisfy(
        ValidationError.isInstance,
      );
      await expect(engine.getSession({ sessionId: aliceSession, userId }), label).rejects.toSatisfy(
        ValidationError.isInstance,
      );
    }
    await expect(
      engine.getSession({ sessionId: `${aliceSession}\u2028`, userId: 'alice' }),
    ).rejects.toMatchObject({ issues: [expect.objectContaining({ path: 'sessionId' })] });
    // Nothing was stored for any of them.
    expect((await engine.listSessions({ userId: 'alice' })).sessions).toHaveLength(1);
  });
});

describe('ids through the HTTP handler', () => {
  const handlerFor = (id: string) =>
    createChatHandler(engine, { authenticate: () => ({ id }), rateLimiter: false });
  const get = (id: string, path: string) =>
    handlerFor(id)(new Request(`http://test${path}`, { method: 'GET' }));

  it('an authenticate returning a look-alike of alice gets none of her conversations', async () => {
    for (const id of ['alice\u00a0', '\u3000alice']) {
      const list = await get(id, '/conversations');
      expect(list.status).toBe(200);
      expect(((await list.json()) as { sessions: unknown[] }).sessions).toEqual([]);
      expect((await get(id, `/conversations/${aliceSession}`)).status).toBe(404);
    }
    const own = await get('alice', `/conversations/${aliceSession}`);
    expect(own.status).toBe(200);
  });

  it('an authenticate returning an invalid id is refused with a validation error', async () => {
    for (const id of ['\u3000alice\u2028', ' ', 'alice\r\n']) {
      const list = await get(id, '/conversations');
      expect(list.status, JSON.stringify(id)).toBe(400);
      expect(await list.json()).toMatchObject({
        code: 'validation_error',
        issues: [expect.objectContaining({ path: 'userId' })],
      });
      expect((await get(id, `/conversations/${aliceSession}`)).status).toBe(400);
    }
  });
});
