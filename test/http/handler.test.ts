import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createMemoryRateLimiter,
  createMemorySessionStore,
  rateLimitKey,
  type ChatEngine,
  type RateLimitEvent,
} from '../../src/index.js';
import { createChatHandler, toNodeListener } from '../../src/http/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

let server: Server;
let base: string;
let engine: ChatEngine;
const sessionStore = createMemorySessionStore();

beforeAll(async () => {
  engine = createChatEngine({ sessionStore });
  await engine.ingest(handbook);
  const handler = createChatHandler(engine, {
    basePath: '/api',
    maxBodyBytes: 2048,
    authenticate: (request) => {
      const id = request.headers.get('x-user');
      return id ? { id } : null;
    },
  });
  server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const call = (path: string, init: RequestInit & { user?: string } = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: {
      ...(init.user ? { 'x-user': init.user } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });

async function conversation(user: string): Promise<string> {
  const response = await call('/conversations', { method: 'POST', user, body: '{}' });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('HTTP handler', () => {
  it('answers health without authentication and 401 on everything else', async () => {
    expect(await (await call('/health')).json()).toEqual({ status: 'ok' });
    expect((await call('/conversations')).status).toBe(401);
    expect((await call('/nope', { user: 'a' })).status).toBe(404);
  });

  it('creates, lists, reads and deletes the caller’s conversations', async () => {
    const id = await conversation('alice');
    const list = (await (await call('/conversations?limit=10', { user: 'alice' })).json()) as {
      sessions: { id: string }[];
    };
    expect(list.sessions.map((session) => session.id)).toContain(id);
    const answer = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'alice',
      body: JSON.stringify({ content: 'What is the refund policy?' }),
    });
    expect(answer.status).toBe(200);
    const reply = (await answer.json()) as { text: string; sources: unknown[] };
    expect(reply.text).toMatch(/\[source: S1\]/);
    const history = (await (
      await call(`/conversations/${id}?limit=1&offset=1&includeSources=false`, { user: 'alice' })
    ).json()) as {
      total: number;
      messages: { role: string; sources: unknown[] }[];
    };
    expect(history.total).toBe(2);
    expect(history.messages).toHaveLength(1);
    expect(history.messages[0]).toMatchObject({ role: 'assistant', sources: [] });
    expect((await call(`/conversations/${id}`, { method: 'DELETE', user: 'alice' })).status).toBe(
      204,
    );
    expect((await call(`/conversations/${id}`, { user: 'alice' })).status).toBe(404);
  });

  it('gives another user 404 on every route of a conversation, never its data', async () => {
    const id = await conversation('alice');
    await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'alice',
      body: JSON.stringify({ content: 'What is the refund policy?' }),
    });
    for (const [path, method, body] of [
      [`/conversations/${id}`, 'GET', undefined],
      [`/conversations/${id}`, 'DELETE', undefined],
      [`/conversations/${id}/messages`, 'POST', JSON.stringify({ content: 'leak?' })],
    ] as const) {
      const response = await call(path, { method, user: 'mallory', ...(body ? { body } : {}) });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toMatch(/refund/i);
    }
    const streamed = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'mallory',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify({ content: 'leak?' }),
    });
    expect(streamed.status).toBe(404);
    expect(await sessionStore.countMessages(id)).toBe(2);
  });

  it('names invalid fields with 400, refuses oversize bodies with 413', async () => {
    const id = await conversation('bob');
    const empty = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'bob',
      body: JSON.stringify({ content: '  ' }),
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'content' }],
    });
    const unknown = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'bob',
      body: JSON.stringify({ content: 'hi', admin: true }),
    });
    expect(await unknown.json()).toMatchObject({ issues: [{ path: 'admin' }] });
    const notJson = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'bob',
      body: '{oops',
    });
    expect(notJson.status).toBe(400);
    const big = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'bob',
      body: JSON.stringify({ content: 'x'.repeat(5000) }),
    });
    expect(big.status).toBe(413);
    expect(await sessionStore.countMessages(id)).toBe(0);
  });

  it('takes searchDepth and an idempotency messageId: a retried POST answers once', async () => {
    const id = await conversation('dave');
    const send = (body: object) =>
      call(`/conversations/${id}/messages`, {
        method: 'POST',
        user: 'dave',
        body: JSON.stringify(body),
      });
    const first = await send({
      content: 'What is the refund policy?',
      searchDepth: 'deep',
      messageId: 'client-1',
    });
    expect(first.status).toBe(200);
    const retried = await send({ content: 'What is the refund policy?', messageId: 'client-1' });
    expect(retried.status).toBe(200);
    const [a, b] = (await Promise.all([first.json(), retried.json()])) as { messageId: string }[];
    expect(b!.messageId).toBe(a!.messageId);
    expect(await sessionStore.countMessages(id)).toBe(2);
    const wrongDepth = await send({ content: 'hi', searchDepth: 'bottomless' });
    expect(wrongDepth.status).toBe(400);
    expect(await wrongDepth.json()).toMatchObject({ issues: [{ path: 'searchDepth' }] });
    expect(await sessionStore.countMessages(id)).toBe(2);
  });

  it('returns the feedback with the history when asked (includeFeedback)', async () => {
    const id = await conversation('erin');
    const answer = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'erin',
      body: JSON.stringify({ content: 'How long does shipping take?' }),
    });
    const { messageId } = (await answer.json()) as { messageId: string };
    const rated = await call(`/messages/${messageId}/feedback`, {
      method: 'POST',
      user: 'erin',
      body: JSON.stringify({ rating: 'good' }),
    });
    expect(rated.status).toBe(201);
    const read = async (query: string) =>
      (await (await call(`/conversations/${id}${query}`, { user: 'erin' })).json()) as {
        feedback?: { messageId: string; rating: string }[];
      };
    expect((await read('')).feedback).toBeUndefined();
    expect((await read('?includeFeedback=true')).feedback).toMatchObject([
      { messageId, rating: 'good' },
    ]);
    const bad = await call(`/conversations/${id}?includeFeedback=yes`, { user: 'erin' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ issues: [{ path: 'includeFeedback' }] });
  });

  it('streams Server-Sent Events that a fetch reader consumes', async () => {
    const id = await conversation('carol');
    const response = await call(`/conversations/${id}/messages`, {
      method: 'POST',
      user: 'carol',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify({ content: 'How long does shipping take?' }),
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await response.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe('route');
    expect(events.indexOf('sources')).toBeLessThan(events.indexOf('text-delta'));
    expect(events.at(-1)).toBe('done');
  });
});

describe('HTTP rate limits', () => {
  it('are on by default and answer 429 with Retry-After, storing nothing', async () => {
    const store = createMemorySessionStore();
    const limited = createChatEngine({ sessionStore: store });
    await limited.ingest(handbook);
    const handler = createChatHandler(limited, {
      authenticate: () => ({ id: 'u' }),
      rateLimiter: createMemoryRateLimiter({
        limit: 2,
        windowMs: 60_000,
        flood: { enabled: false },
      }),
    });
    const created = await handler(new Request('http://x/conversations', { method: 'POST' }));
    const { id } = (await created.json()) as { id: string };
    const send = () =>
      handler(
        new Request(`http://x/conversations/${id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'What is the refund policy?' }),
        }),
      );
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(await store.countMessages(id)).toBe(4);
    const defaults = createChatHandler(limited, { authenticate: () => ({ id: 'v' }) });
    const other = await defaults(new Request('http://x/conversations', { method: 'POST' }));
    expect(other.status).toBe(201);
  });
});

describe('HTTP handler failures', () => {
  it('never surfaces provider internals: a failing model is a 502 with a generic message', async () => {
    const failing = createChatEngine({
      llm: createMockLLM({ responses: new Error('secret upstream detail sk-123') }),
    });
    await failing.ingest(handbook);
    const handler = createChatHandler(failing, { authenticate: () => ({ id: 'u' }) });
    const created = await handler(new Request('http://x/conversations', { method: 'POST' }));
    const { id } = (await created.json()) as { id: string };
    const response = await handler(
      new Request(`http://x/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'What is the refund policy?' }),
      }),
    );
    expect(response.status).toBe(502);
    const body = await response.text();
    expect(body).not.toMatch(/secret|sk-123/);
    expect(JSON.parse(body)).toMatchObject({ code: 'provider_error' });
  });

  it('keeps the partial answer when the client disconnects mid-stream', async () => {
    const store = createMemorySessionStore();
    const slow = createChatEngine({
      sessionStore: store,
      llm: createMockLLM({
        responses: 'one two three four five six seven eight nine ten',
        chunkDelayMs: 30,
      }),
    });
    await slow.ingest(handbook);
    const handler = createChatHandler(slow, { authenticate: () => ({ id: 'u' }) });
    const listener = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const { id } = (await (await fetch(`${url}/conversations`, { method: 'POST' })).json()) as {
      id: string;
    };
    const controller = new AbortController();
    const response = await fetch(`${url}/conversations/${id}/messages`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'What is the refund policy?' }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('text-delta'))
      seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await expect.poll(async () => (await store.listMessages(id)).length, { timeout: 5000 }).toBe(2);
    const [user, assistant] = await store.listMessages(id);
    expect(user!.role).toBe('user');
    expect(assistant).toMatchObject({ role: 'assistant', status: 'incomplete' });
    listener.closeAllConnections();
    await new Promise((resolve) => listener.close(resolve));
  });
});

describe('HTTP limits that hold', () => {
  const jsonPost = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  async function limitedHandler(
    extra: Partial<Parameters<typeof createChatHandler>[1]> = {},
    limit = 2,
  ) {
    const store = createMemorySessionStore();
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const limited = createChatEngine({ sessionStore: store, llm });
    await limited.ingest(handbook);
    const handler = createChatHandler(limited, {
      authenticate: (request) => {
        const id = request.headers.get('x-user');
        return id ? { id, anonymous: request.headers.get('x-guest') === '1' } : null;
      },
      rateLimiter: createMemoryRateLimiter({ limit, windowMs: 60_000, flood: false }),
      ...extra,
    });
    const open = async (user: string) => {
      const created = await handler(
        new Request('http://x/conversations', { method: 'POST', headers: { 'x-user': user } }),
      );
      expect(created.status).toBe(201);
      return ((await created.json()) as { id: string }).id;
    };
    return { handler, store, llm, open };
  }

  it('counts messages per user across conversations: rotating made-up ids in query mode gains nothing', async () => {
    const { handler, llm } = await limitedHandler();
    const statuses: number[] = [];
    for (let index = 0; index < 6; index++) {
      const response = await handler(
        jsonPost(
          `http://x/conversations/made-up-${index}/messages`,
          { content: 'What is the refund policy?', mode: 'query' },
          { 'x-user': 'mallory' },
        ),
      );
      statuses.push(response.status);
    }
    // Made-up ids are 404 (the route names a conversation), then the user's budget is spent.
    expect(statuses).toEqual([404, 404, 429, 429, 429, 429]);
    expect(llm.calls).toHaveLength(0);
  });

  it('counts messages of one user across their real conversations', async () => {
    const { handler, open, llm } = await limitedHandler();
    const [first, second] = [await open('alice'), await open('alice')];
    const ids = [first, second, first];
    const statuses = [];
    for (const id of ids) {
      const response = await handler(
        jsonPost(
          `http://x/conversations/${id}/messages`,
          { content: 'What is the refund policy?' },
          { 'x-user': 'alice' },
        ),
      );
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(llm.calls).toHaveLength(2);
  });

  it('limits conversation creation in a budget of its own', async () => {
    const { handler, open } = await limitedHandler();
    await open('carl');
    await open('carl');
    const refused = await handler(
      new Request('http://x/conversations', { method: 'POST', headers: { 'x-user': 'carl' } }),
    );
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    // Creating spent nothing of the message budget.
    const listed = (await (
      await handler(new Request('http://x/conversations', { headers: { 'x-user': 'carl' } }))
    ).json()) as { sessions: { id: string }[] };
    expect(listed.sessions).toHaveLength(2);
    const answer = await handler(
      jsonPost(
        `http://x/conversations/${listed.sessions[0]!.id}/messages`,
        { content: 'What is the refund policy?' },
        { 'x-user': 'carl' },
      ),
    );
    expect(answer.status).toBe(200);
  });

  it('keys never collide: user acme posting to conversation "bob:<id>" leaves user acme:bob alone', async () => {
    const { handler, open } = await limitedHandler();
    const id = await open('acme:bob');
    for (let index = 0; index < 3; index++) {
      await handler(
        jsonPost(
          `http://x/conversations/${encodeURIComponent(`bob:${id}`)}/messages`,
          { content: 'What is the refund policy?' },
          { 'x-user': 'acme' },
        ),
      );
    }
    const own = await handler(
      jsonPost(
        `http://x/conversations/${id}/messages`,
        { content: 'What is the refund policy?' },
        { 'x-user': 'acme:bob' },
      ),
    );
    expect(own.status).toBe(200);
  });

  it('answers 404 for query mode on another user’s conversation, JSON and SSE', async () => {
    const { handler, open, llm } = await limitedHandler({}, 10);
    const id = await open('alice');
    for (const accept of ['application/json', 'text/event-stream']) {
      const response = await handler(
        jsonPost(
          `http://x/conversations/${id}/messages`,
          { content: 'What is the refund policy?', mode: 'query' },
          { 'x-user': 'mallory', accept },
        ),
      );
      expect(response.status, accept).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'not_found' });
    }
    expect(llm.calls).toHaveLength(0);
    const own = await handler(
      jsonPost(
        `http://x/conversations/${id}/messages`,
        { content: 'What is the refund policy?', mode: 'query' },
        { 'x-user': 'alice' },
      ),
    );
    expect(own.status).toBe(200);
  });

  it('limits anonymous users per client IP, whatever id they send, and reports the IP', async () => {
    const events: RateLimitEvent[] = [];
    const { handler } = await limitedHandler({
      clientIp: (request) => request.headers.get('x-test-ip'),
      onRateLimit: (event) => events.push(event),
    });
    const create = (user: string, ip: string) =>
      handler(
        new Request('http://x/conversations', {
          method: 'POST',
          headers: { 'x-user': user, 'x-guest': '1', 'x-test-ip': ip },
        }),
      );
    expect((await create('guest-1', '203.0.113.7')).status).toBe(201);
    expect((await create('guest-2', '203.0.113.7')).status).toBe(201);
    expect((await create('guest-3', '203.0.113.7')).status).toBe(429);
    expect((await create('guest-4', '198.51.100.2')).status).toBe(201);
    expect(events).toEqual([
      expect.objectContaining({
        scope: 'http',
        reason: 'window',
        ip: '203.0.113.7',
        key: rateLimitKey('create', 'ip', '203.0.113.7'),
      }),
    ]);
  });

  it('refuses a body that is not declared JSON with 415 (a cross-site text/plain form)', async () => {
    const { handler, open, store } = await limitedHandler({}, 10);
    const id = await open('alice');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const response = await handler(
        new Request(`http://x/conversations/${id}/messages`, {
          method: 'POST',
          headers: { 'x-user': 'alice', ...(type ? { 'content-type': type } : {}) },
          body: new Blob([JSON.stringify({ content: 'What is the refund policy?' })]),
        }),
      );
      expect(response.status, String(type)).toBe(415);
      expect(await response.json()).toMatchObject({ code: 'unsupported_media_type' });
    }
    expect(await store.countMessages(id)).toBe(0);
    const declared = await handler(
      jsonPost(
        `http://x/conversations/${id}/messages`,
        { content: 'What is the refund policy?' },
        { 'x-user': 'alice', 'content-type': 'Application/JSON; charset=utf-8' },
      ),
    );
    expect(declared.status).toBe(200);
  });

  it('matches basePath at a segment boundary only', async () => {
    const handler = createChatHandler(engine, {
      basePath: '/api',
      authenticate: () => ({ id: 'u' }),
    });
    expect((await handler(new Request('http://x/api/health'))).status).toBe(200);
    expect((await handler(new Request('http://x/apihealth'))).status).toBe(404);
    expect((await handler(new Request('http://x/apiconversations'))).status).toBe(404);
    expect((await handler(new Request('http://x/api/conversations'))).status).toBe(200);
  });
});
