/**
 * Issue 30 item 5: `POST /conversations` takes the same validated `settings` (and `title`) as
 * `engine.createSession`; anything else is a 400 naming the field, never dropped silently.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/index.js';
import { createChatHandler } from '../../src/http/index.js';

function setup() {
  const engine = createChatEngine();
  const handler = createChatHandler(engine, {
    authenticate: (request) => {
      const id = request.headers.get('x-user');
      return id ? { id } : null;
    },
  });
  const create = (body: unknown, user = 'ann') =>
    handler(
      new Request('http://x/conversations', {
        method: 'POST',
        headers: { 'x-user': user, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  return { engine, create };
}

describe('POST /conversations settings', () => {
  it('stores the settings a client sends', async () => {
    const { engine, create } = setup();
    const response = await create({ title: 'Refunds', settings: { topK: 2, threshold: 0.7 } });
    expect(response.status).toBe(201);
    const { id, session } = (await response.json()) as {
      id: string;
      session: { title: string; settings: Record<string, unknown> };
    };
    expect(session.settings).toEqual({ topK: 2, threshold: 0.7 });
    expect(session.title).toBe('Refunds');
    const stored = await engine.getSession({ sessionId: id, userId: 'ann' });
    expect(stored.settings).toEqual({ topK: 2, threshold: 0.7 });
  });

  it('answers 400 naming a bad, unknown or hostile field, and creates nothing', async () => {
    const { engine, create } = setup();
    const cases: [unknown, string][] = [
      [{ settings: { topK: 0 } }, 'settings.topK'],
      [{ settings: { threshold: 2 } }, 'settings.threshold'],
      [{ settings: { colour: 'red' } }, 'settings'],
      [{ settings: 'fast' }, 'settings'],
      [{ settings: { systemPrompt: 'a\u0000b' } }, 'settings.systemPrompt'],
      [{ settings: { systemPrompt: '\uD800' } }, 'settings.systemPrompt'],
      [{ settings: { systemPrompt: 'x'.repeat(30_000) } }, 'settings.systemPrompt'],
      [{ settings: { model: 'gpt-9' } }, 'settings.model'],
      [{ title: 42 }, 'title'],
      [{ userId: 'bob' }, 'userId'],
      [{ id: 'chosen' }, 'id'],
    ];
    for (const [body, path] of cases) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = (await response.json()) as { code: string; message: string };
      expect(error.code).toBe('validation_error');
      expect(error.message).toContain(path);
    }
    expect((await engine.listSessions({ userId: 'ann' })).sessions).toEqual([]);
    expect((await engine.listSessions({ userId: 'bob' })).sessions).toEqual([]);
  });

  it('still creates a conversation from an empty body', async () => {
    const { create } = setup();
    const response = await create({});
    expect(response.status).toBe(201);
    expect(
      ((await response.json()) as { session: { settings: unknown } }).session.settings,
    ).toEqual({});
  });
});
