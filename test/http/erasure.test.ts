/**
 * `DELETE {basePath}/me` erases the caller (issue 28, item 4): every conversation of the
 * authenticated user goes, with a report; other users keep theirs; a guest (a possibly shared
 * id) is refused; an id the engine refuses is a generic 400 that deletes nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createChatEngine, createMemorySessionStore, type ChatEngine } from '../../src/index.js';
import { createChatHandler, type ChatHandler } from '../../src/http/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

let engine: ChatEngine;
let handler: ChatHandler;

beforeEach(async () => {
  engine = createChatEngine({
    sessionStore: createMemorySessionStore(),
    llm: createMockLLM({ responses: () => ({ text: 'Noted [source: S1].' }) }),
  });
  await engine.ingest(handbook);
  handler = createChatHandler(engine, {
    basePath: '/api',
    rateLimiter: false,
    authenticate: (request) => {
      const id = request.headers.get('x-user');
      if (id === null) return null;
      return { id: JSON.parse(id) as string, anonymous: request.headers.has('x-guest') };
    },
  });
});

const call = (path: string, method: string, user?: string, guest = false) =>
  handler(
    new Request(`http://localhost/api${path}`, {
      method,
      headers: {
        ...(user === undefined ? {} : { 'x-user': JSON.stringify(user) }),
        ...(guest ? { 'x-guest': '1' } : {}),
      },
    }),
  );

async function conversationOf(userId: string): Promise<string> {
  const session = await engine.createSession({ userId });
  await engine.chat({ sessionId: session.id, userId, message: 'What is the refund policy?' });
  return session.id;
}

describe('DELETE /me', () => {
  it("erases the caller's conversations and reports it; other users keep theirs", async () => {
    await conversationOf('alice');
    await conversationOf('alice');
    const bobs = await conversationOf('bob');
    const response = await call('/me', 'DELETE', 'alice');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      erased: expect.objectContaining({ userId: 'alice', sessions: 2, messages: 4 }),
    });
    expect((await engine.listSessions({ userId: 'alice' })).sessions).toEqual([]);
    expect((await call(`/conversations/${bobs}`, 'GET', 'bob')).status).toBe(200);
    // Again: nothing left.
    expect(await (await call('/me', 'DELETE', 'alice')).json()).toMatchObject({
      erased: { sessions: 0, messages: 0 },
    });
  });

  it('refuses the unauthenticated (401) and guests (403), deleting nothing', async () => {
    await conversationOf('guest');
    expect((await call('/me', 'DELETE')).status).toBe(401);
    const refused = await call('/me', 'DELETE', 'guest', true);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ code: 'forbidden', message: 'Guests cannot be erased' });
    expect((await engine.listSessions({ userId: 'guest' })).sessions).toHaveLength(1);
  });

  it('is DELETE on /me only', async () => {
    await conversationOf('alice');
    expect((await call('/me', 'GET', 'alice')).status).toBe(404);
    expect((await call('/me', 'POST', 'alice')).status).toBe(404);
    expect((await call('/me/bob', 'DELETE', 'alice')).status).toBe(404);
    expect((await engine.listSessions({ userId: 'alice' })).sessions).toHaveLength(1);
  });

  it.each([
    ['NUL', 'alice\u0000'],
    ['a lone surrogate', 'alice\uD800'],
    ['a huge id', 'a'.repeat(100_000)],
  ])('answers a generic 400 for an id with %s', async (_name, id) => {
    await conversationOf('alice');
    const response = await call('/me', 'DELETE', id);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe('validation_error');
    expect(body.message.length).toBeLessThan(200);
    expect((await engine.listSessions({ userId: 'alice' })).sessions).toHaveLength(1);
  });
});
