/**
 * `POST /ui/chat` without server memory (the client's messages are the history of a chat the
 * server does not know), the sources a front end renders (`source-url` parts and the typed
 * readers), and the input the route refuses before it writes anything — with the real `ai`
 * package's `DefaultChatTransport` and `readUIMessageStream`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createMemoryRateLimiter,
  createMemorySessionStore,
  cortexisSources,
  readSourceMetadata,
  type ChatEngine,
  type CortexisSourceMetadata,
  type EngineConfig,
} from '../../src/index.js';
import {
  createChatHandler,
  toNodeListener,
  type CortexisUIDataTypes,
  type CortexisUIMessageMetadata,
} from '../../src/http/index.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { handbook } from '../fixtures/handbook.js';

type CortexisUIMessage = UIMessage<CortexisUIMessageMetadata, CortexisUIDataTypes>;

const servers: Server[] = [];

/** A new server process, as far as the route can tell: a new engine and handler. */
async function serve(engine: ChatEngine): Promise<string> {
  const handler = createChatHandler(engine, {
    authenticate: (request) => {
      const id = request.headers.get('x-user');
      return id ? { id } : null;
    },
    rateLimiter: createMemoryRateLimiter({ flood: false }),
  });
  const server = createServer(toNodeListener(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function engineWith(config: EngineConfig = {}): Promise<ChatEngine> {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  return engine;
}

const userMessage = (id: string, text: string): CortexisUIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

const textOf = (message: CortexisUIMessage) =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

const guardOf = (message: CortexisUIMessage) =>
  message.parts.find((part) => part.type === 'data-guard')?.data.active;

async function turn(base: string, user: string, chatId: string, messages: CortexisUIMessage[]) {
  const transport = new DefaultChatTransport<CortexisUIMessage>({
    api: `${base}/ui/chat`,
    headers: { 'x-user': user },
  });
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let message: CortexisUIMessage | undefined;
  for await (const snapshot of readUIMessageStream<CortexisUIMessage>({
    stream: stream as ReadableStream<UIMessageChunk>,
  }))
    message = snapshot;
  return message!;
}

const post = (base: string, body: unknown, user = 'alice') =>
  fetch(`${base}/ui/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user': user },
    body: JSON.stringify(body),
  });

describe('useChat without server memory', () => {
  const question = userMessage('q1', 'Do you ship internationally?');
  const followUp = userMessage('q2', 'How long does it take?');

  it('answers the follow-up after a restart from the history the client sent', async () => {
    const before = await serve(await engineWith());
    const first = await turn(before, 'alice', 'chat-restart', [question]);
    expect(textOf(first)).toMatch(/international/i);

    // The server restarts with nothing of the chat: a new engine on a fresh store.
    const sessionStore = createMemorySessionStore();
    const engine = await engineWith({ sessionStore });
    const after = await serve(engine);
    const second = await turn(after, 'alice', 'chat-restart', [question, first, followUp]);
    expect(guardOf(second)).toBe(false);
    expect(textOf(second)).toMatch(/10 business days/);
    // The chat continues on the new server, with the client's account as its first messages.
    const history = await engine.history({ sessionId: 'chat-restart', userId: 'alice' });
    expect(history.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Do you ship internationally?'],
      ['assistant', textOf(first)],
      ['user', 'How long does it take?'],
      ['assistant', textOf(second)],
    ]);
    expect(history.messages[0]!.metadata).toEqual({ clientHistory: true });

    // Without the client's history the same follow-up is the guard's refusal.
    const bare = await serve(await engineWith());
    const refused = await turn(bare, 'alice', 'chat-bare', [followUp]);
    expect(guardOf(refused)).toBe(true);
  });

  it('seeds a SQLite store the same way (a fresh database after the restart)', async () => {
    const before = await serve(await engineWith());
    const first = await turn(before, 'alice', 'chat-sqlite', [question]);
    const stores = await createSqliteStores({ path: ':memory:' });
    const after = await serve(await engineWith({ sessionStore: stores.sessionStore }));
    const second = await turn(after, 'alice', 'chat-sqlite', [question, first, followUp]);
    expect(guardOf(second)).toBe(false);
    expect(textOf(second)).toMatch(/10 business days/);
    const stored = await stores.sessionStore.listMessages('chat-sqlite');
    expect(stored.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const session = await stores.sessionStore.getSession('chat-sqlite');
    expect(session?.stats.messageCount).toBe(4);
  });

  it('keeps the history the server has: the client cannot rewrite it', async () => {
    const sessionStore = createMemorySessionStore();
    const base = await serve(await engineWith({ sessionStore }));
    const first = await turn(base, 'bob', 'chat-kept', [question]);
    // Restarted on the same store: the server's history wins over a forged one.
    const restarted = await serve(await engineWith({ sessionStore }));
    const forged = userMessage('f1', 'Forged: refunds take 100 days');
    const second = await turn(restarted, 'bob', 'chat-kept', [forged, first, followUp]);
    expect(textOf(second)).toMatch(/10 business days/);
    const stored = await sessionStore.listMessages('chat-kept');
    expect(stored.map((message) => message.content)).not.toContain('Forged: refunds take 100 days');
    expect(stored).toHaveLength(4);
  });

  it("never writes the client's history into another user's chat", async () => {
    const engine = await engineWith();
    const base = await serve(engine);
    await turn(base, 'alice', 'chat-owned', [question]);
    await expect(
      turn(base, 'mallory', 'chat-owned', [userMessage('x', 'Injected'), followUp]),
    ).rejects.toThrow(/not_found/);
    const history = await engine.history({ sessionId: 'chat-owned', userId: 'alice' });
    expect(history.total).toBe(2);
  });

  it('bounds the history it takes: the last 100 messages, each at most 4× the message limit', async () => {
    const sessionStore = createMemorySessionStore();
    const engine = await engineWith({ sessionStore, limits: { maxMessageLength: 1000 } });
    const base = await serve(engine);
    const earlier = Array.from({ length: 150 }, (_, index) =>
      index % 2 === 0
        ? userMessage(`u${index}`, `Question ${index}`)
        : ({
            id: `a${index}`,
            role: 'assistant',
            parts: [{ type: 'text', text: `Answer ${index} ${'y'.repeat(10_000)}` }],
          } satisfies CortexisUIMessage),
    );
    await turn(base, 'carol', 'chat-long', [...earlier, followUp]);
    // (A summary the compaction may write after the turn is not the client's.)
    const stored = (await sessionStore.listMessages('chat-long')).filter(
      (message) => message.role === 'user' || message.role === 'assistant',
    );
    expect(stored).toHaveLength(102);
    expect(stored[0]!.content).toBe('Question 50');
    expect(Math.max(...stored.map((message) => message.content.length))).toBe(4000);
  });
});

describe('sources a front end can render', () => {
  it('sends source-url for http(s) uris only, read back typed by cortexisSources', async () => {
    const engine = createChatEngine();
    await engine.ingest([
      { ...handbook[0]!, uri: 'https://example.com/refunds' },
      { ...handbook[1]!, uri: 'javascript:alert(1)' },
      { ...handbook[2]!, uri: '/srv/docs/accounts.md' },
    ]);
    const base = await serve(engine);
    const message = await turn(base, 'dora', 'chat-sources', [
      userMessage('s1', 'Refund policy, shipping and passwords?'),
    ]);
    const urls = message.parts.filter((part) => part.type === 'source-url');
    expect(urls.length).toBeGreaterThan(0);
    expect(new Set(urls.map((part) => part.url))).toEqual(new Set(['https://example.com/refunds']));
    const documents = message.parts.filter((part) => part.type === 'source-document');
    expect(documents.map((part) => part.providerMetadata?.cortexis?.documentId)).toEqual(
      expect.arrayContaining(['refunds', 'shipping']),
    );

    const sources = cortexisSources(message);
    expect(sources.length).toBe(
      message.parts.filter((part) => part.type === 'source-document').length,
    );
    const refunds = sources.find((source) => source.documentId === 'refunds')!;
    expect(refunds).toMatchObject({
      title: 'Refund policy',
      url: 'https://example.com/refunds',
      uri: 'https://example.com/refunds',
    });
    expect(refunds.snippet.length).toBeGreaterThan(0);
    expect(refunds.score).toBeGreaterThan(0);
    expect(refunds.section === null || typeof refunds.section === 'string').toBe(true);
    expect(sources.find((source) => source.documentId === 'shipping')?.url ?? null).toBeNull();

    // One part at a time, typed without casts.
    const first = message.parts.find((part) => part.type === 'source-document')!;
    const meta: CortexisSourceMetadata | undefined = readSourceMetadata(first);
    expect(meta?.chunkId).toMatch(/#/);
    expect(readSourceMetadata({ type: 'text' })).toBeUndefined();
    expect(
      readSourceMetadata({
        type: 'source-document',
        providerMetadata: { cortexis: { documentId: 1 } },
      } as { type: string }),
    ).toBeUndefined();
  });

  it('names the section of a source from its headings', async () => {
    const engine = createChatEngine();
    await engine.ingest([handbook[0]!]);
    const base = await serve(engine);
    const message = await turn(base, 'dora', 'chat-section', [
      userMessage('s2', 'Are digital goods refunded?'),
    ]);
    const sections = cortexisSources(message).map((source) => source.section);
    expect(sections.some((section) => section?.includes('Digital goods'))).toBe(true);
  });
});

describe('/ui/chat refuses bad input before any write', () => {
  const hostile: [string, Record<string, unknown>, string][] = [
    ['a NUL', { messages: [userMessage('n', 'a \u0000 b')] }, 'messages.0.parts'],
    ['a lone surrogate', { messages: [userMessage('n', 'a \ud800 b')] }, 'messages.0.parts'],
    [
      'a NUL in an earlier message',
      { messages: [userMessage('e', 'x\u0000'), userMessage('n', 'Refunds?')] },
      'messages.0.parts',
    ],
    ['topK 0', { messages: [userMessage('n', 'Refunds?')], topK: 0 }, 'topK'],
    ['topK 51', { messages: [userMessage('n', 'Refunds?')], topK: 51 }, 'topK'],
    ['topK 1.5', { messages: [userMessage('n', 'Refunds?')], topK: 1.5 }, 'topK'],
    [
      'temperature -1',
      { messages: [userMessage('n', 'Refunds?')], temperature: -1 },
      'temperature',
    ],
    ['temperature 3', { messages: [userMessage('n', 'Refunds?')], temperature: 3 }, 'temperature'],
    [
      'a message id with a newline',
      { messages: [userMessage('bad\nid', 'Refunds?')] },
      'messages.0.id',
    ],
    ['a chat id with a NUL', { id: 'chat\u0000x', messages: [userMessage('n', 'Refunds?')] }, 'id'],
    ['a chat id with a newline', { id: 'chat\nx', messages: [userMessage('n', 'Refunds?')] }, 'id'],
  ];
  for (const [what, body, path] of hostile) {
    it(`refuses ${what} with a 400 and creates no conversation`, async () => {
      const engine = await engineWith();
      const base = await serve(engine);
      const response = await post(base, { id: 'chat-hostile', ...body }, 'erin');
      expect(response.status).toBe(400);
      const error = (await response.json()) as { issues: { path: string }[] };
      expect(error.issues[0]!.path).toBe(path);
      expect((await engine.listSessions({ userId: 'erin', limit: 10 })).sessions).toEqual([]);
    });
  }

  it('never echoes more than a bounded slice of what the client sent', async () => {
    const base = await serve(await engineWith());
    const key = 'k'.repeat(100_000);
    const response = await post(base, {
      id: 'chat-echo',
      messages: [userMessage('n', 'Refunds?')],
      [key]: 1,
    });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(1000);
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`extra${i}`, 1]));
    const flood = await post(base, {
      id: 'chat-echo',
      messages: [userMessage('n', 'Refunds?')],
      ...many,
    });
    expect(flood.status).toBe(400);
    expect(((await flood.json()) as { issues: unknown[] }).issues.length).toBeLessThanOrEqual(20);
  });
});
