/**
 * The AI SDK integration, proven with the real `ai` package: `DefaultChatTransport` (what
 * `useChat` uses) POSTs to a running `cortexis/http` handler and `readUIMessageStream` builds the
 * UI messages from the answer, validating every chunk against the SDK's own schema.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbstractChat,
  DefaultChatTransport,
  readUIMessageStream,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createMemoryRateLimiter,
  ProviderError,
  rateLimitKey,
  type ChatEngine,
} from '../../src/index.js';
import {
  createChatHandler,
  toNodeListener,
  type ChatHandlerSettings,
  type CortexisUIDataTypes,
  type CortexisUIMessageMetadata,
} from '../../src/http/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

/** The UI message type a `useChat` client of cortexis declares. */
type CortexisUIMessage = UIMessage<CortexisUIMessageMetadata, CortexisUIDataTypes>;

const servers: Server[] = [];

async function serve(engine: ChatEngine, settings: Partial<ChatHandlerSettings> = {}) {
  const handler = createChatHandler(engine, {
    basePath: '/api',
    authenticate: (request) => {
      const id = request.headers.get('x-user');
      return id ? { id } : null;
    },
    rateLimiter: createMemoryRateLimiter({ flood: false }),
    ...settings,
  });
  const server = createServer(toNodeListener(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const userMessage = (id: string, text: string): CortexisUIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** One `useChat` turn: send the chat, read the answer's UI message to its end. */
async function turn(
  transport: DefaultChatTransport<CortexisUIMessage>,
  chatId: string,
  messages: CortexisUIMessage[],
  trigger: 'submit-message' | 'regenerate-message' = 'submit-message',
) {
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger,
    messageId: undefined,
    abortSignal: undefined,
  });
  const errors: Error[] = [];
  let message: CortexisUIMessage | undefined;
  for await (const snapshot of readUIMessageStream<CortexisUIMessage>({
    stream: stream as ReadableStream<UIMessageChunk>,
    onError: (error) => errors.push(error as Error),
    terminateOnError: false,
  }))
    message = snapshot;
  return { message: message!, errors };
}

/**
 * `useChat` is `AbstractChat` with React state (`@ai-sdk/react`'s `Chat`); this is the same chat
 * with plain state, so the test drives what `useChat` drives, without React.
 */
class PlainChat extends AbstractChat<CortexisUIMessage> {
  constructor(init: { id: string; transport: DefaultChatTransport<CortexisUIMessage> }) {
    const state: ChatState<CortexisUIMessage> = {
      status: 'ready' as ChatStatus,
      error: undefined,
      messages: [],
      pushMessage: (message) => void state.messages.push(message),
      popMessage: () => void state.messages.pop(),
      replaceMessage: (index, message) => void (state.messages[index] = message),
      snapshot: (thing) => structuredClone(thing),
    };
    super({ ...init, state });
  }
}

const textOf = (message: CortexisUIMessage) =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

describe('AI SDK useChat against cortexis/http', () => {
  let engine: ChatEngine;
  let base: string;
  beforeAll(async () => {
    engine = createChatEngine();
    await engine.ingest(handbook);
    base = await serve(engine);
  });

  const transportFor = (user: string) =>
    new DefaultChatTransport<CortexisUIMessage>({
      api: `${base}/ui/chat`,
      headers: { 'x-user': user },
    });

  it('holds a two-turn conversation: text, source-document parts, data parts, one history', async () => {
    const transport = transportFor('alice');
    const chatId = 'chat-alice-1';
    const question = userMessage('m1', 'What is the refund policy?');
    const first = await turn(transport, chatId, [question]);
    expect(first.errors).toEqual([]);
    expect(textOf(first.message)).toMatch(/14 days/);
    const sources = first.message.parts.filter((part) => part.type === 'source-document');
    expect(sources.length).toBeGreaterThan(0);
    expect(sources[0]).toMatchObject({
      sourceId: 'S1',
      mediaType: 'text/plain',
      title: 'Refund policy',
      providerMetadata: { cortexis: { documentId: 'refunds' } },
    });
    const confidence = first.message.parts.find((part) => part.type === 'data-confidence');
    expect(confidence?.data.level).toMatch(/^(low|medium|high)$/);
    expect(confidence?.data.overall).toBeGreaterThan(0);
    const guard = first.message.parts.find((part) => part.type === 'data-guard');
    expect(guard?.data).toEqual({ active: false });
    expect(first.message.parts.find((part) => part.type === 'data-citations')?.data).toMatchObject({
      validIds: expect.arrayContaining(['S1']),
    });
    const metadata = first.message.metadata!;
    expect(metadata).toMatchObject({ status: 'complete', sessionId: chatId });

    // The second turn sends the whole chat, as useChat does; only its last message is new.
    const second = await turn(transport, chatId, [
      question,
      first.message,
      userMessage('m2', 'How long does shipping take?'),
    ]);
    expect(second.errors).toEqual([]);
    expect(textOf(second.message)).toMatch(/business days/);
    expect(second.message.metadata).toMatchObject({ status: 'complete', sessionId: chatId });

    const history = await engine.history({ sessionId: chatId, userId: 'alice' });
    expect(history.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'What is the refund policy?'],
      ['assistant', textOf(first.message)],
      ['user', 'How long does shipping take?'],
      ['assistant', textOf(second.message)],
    ]);
    // The stored ids reach the client, for feedback.
    if (metadata.status === 'error') throw new Error('unexpected');
    expect(history.messages[1]!.id).toBe(metadata.messageId);
  });

  it('drives the chat useChat uses: two messages, a regeneration, one server history', async () => {
    const chat = new PlainChat({ id: 'chat-ivy', transport: transportFor('ivy') });
    await chat.sendMessage({ text: 'What is the refund policy?' });
    expect(chat.status).toBe('ready');
    await chat.sendMessage({ text: 'How long does shipping take?' });
    expect(chat.error).toBeUndefined();
    const [, first, , second] = chat.messages;
    expect(chat.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(textOf(first!)).toMatch(/14 days/);
    expect(textOf(second!)).toMatch(/business days/);
    expect(second!.parts.some((part) => part.type === 'source-document')).toBe(true);
    expect(second!.parts.find((part) => part.type === 'data-confidence')).toBeDefined();
    await chat.regenerate();
    expect(chat.messages).toHaveLength(4);
    expect(textOf(chat.messages[3]!)).toMatch(/business days/);
    const history = await engine.history({ sessionId: 'chat-ivy', userId: 'ivy' });
    expect(history.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('answers a retried message once (its id is the idempotency key), regenerates anew', async () => {
    const transport = transportFor('carol');
    const question = userMessage('q1', 'What is the refund policy?');
    const first = await turn(transport, 'chat-carol', [question]);
    const retried = await turn(transport, 'chat-carol', [question]);
    expect(textOf(retried.message)).toBe(textOf(first.message));
    let history = await engine.history({ sessionId: 'chat-carol', userId: 'carol' });
    expect(history.total).toBe(2);
    const again = await turn(transport, 'chat-carol', [question], 'regenerate-message');
    expect(again.errors).toEqual([]);
    expect(textOf(again.message)).toMatch(/14 days/);
    history = await engine.history({ sessionId: 'chat-carol', userId: 'carol' });
    expect(history.total).toBe(4);
  });

  it("never lets a user reach another user's chat id: 404", async () => {
    await turn(transportFor('alice'), 'chat-private', [
      userMessage('p1', 'What is the refund policy?'),
    ]);
    await expect(
      turn(transportFor('mallory'), 'chat-private', [userMessage('x1', 'Show me the chat')]),
    ).rejects.toThrow(/not_found/);
    const history = await engine.history({ sessionId: 'chat-private', userId: 'alice' });
    expect(history.total).toBe(2);
  });

  it('refuses bad requests with a clear 400 and unauthenticated ones with 401', async () => {
    const post = (body: unknown, user: string | null = 'alice') =>
      fetch(`${base}/ui/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
        body: JSON.stringify(body),
      });
    expect((await post({ id: 'c', messages: [] }, null)).status).toBe(401);
    const noText = await post({
      id: 'c',
      messages: [{ id: 'a', role: 'user', parts: [{ type: 'file', url: 'x', mediaType: 'a/b' }] }],
    });
    expect(noText.status).toBe(400);
    expect(await noText.json()).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'messages.0.parts', message: 'must contain text' }],
    });
    const assistantLast = await post({
      id: 'c',
      messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }],
    });
    expect(assistantLast.status).toBe(400);
    const unknownField = await post({ id: 'c', messages: [userMessage('a', 'hi')], system: 'x' });
    expect(unknownField.status).toBe(400);
    // A resumable-stream probe (`useChat({ resume: true })`): nothing to resume.
    const resume = await fetch(`${base}/ui/chat/c/stream`, { headers: { 'x-user': 'alice' } });
    expect(resume.status).toBe(204);
  });

  it('ends a chat with the quit word (409 afterwards) and refuses bodies over the limit (413)', async () => {
    const transport = transportFor('henry');
    const ended = await turn(transport, 'chat-henry', [userMessage('h1', 'quit')]);
    expect(ended.message.metadata).toMatchObject({ status: 'complete', ended: true });
    await expect(
      turn(transport, 'chat-henry', [userMessage('h2', 'What is the refund policy?')]),
    ).rejects.toThrow(/conflict/);

    const small = await serve(engine, { maxBodyBytes: 1024, maxUIChatBodyBytes: 2048 });
    const big = new DefaultChatTransport<CortexisUIMessage>({
      api: `${small}/ui/chat`,
      headers: { 'x-user': 'henry' },
    });
    const long = userMessage('h3', 'x'.repeat(1500));
    // Over maxBodyBytes but within maxUIChatBodyBytes: answered.
    await expect(turn(big, 'chat-henry-2', [long])).resolves.toBeDefined();
    await expect(turn(big, 'chat-henry-3', [long, long])).rejects.toThrow(/payload_too_large/);
  });

  it('accepts a client that sends only its last message ({ id, message })', async () => {
    const transport = new DefaultChatTransport<CortexisUIMessage>({
      api: `${base}/ui/chat`,
      headers: { 'x-user': 'dave' },
      prepareSendMessagesRequest: ({ id, messages }) => ({
        body: { id, message: messages.at(-1) },
      }),
    });
    const { message, errors } = await turn(transport, 'chat-dave', [
      userMessage('d1', 'How long does shipping take?'),
    ]);
    expect(errors).toEqual([]);
    expect(textOf(message)).toMatch(/business days/);
  });
});

describe('AI SDK route limits and failures', () => {
  it('counts every message in the per-user message budget, and new chats in the create budget', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const base = await serve(engine, {
      rateLimiter: createMemoryRateLimiter({ limit: 2, windowMs: 60_000, flood: false }),
    });
    const transport = new DefaultChatTransport<CortexisUIMessage>({
      api: `${base}/ui/chat`,
      headers: { 'x-user': 'erin' },
    });
    await turn(transport, 'limited-1', [userMessage('a', 'What is the refund policy?')]);
    await turn(transport, 'limited-2', [userMessage('b', 'How long does shipping take?')]);
    // A third message in any chat: 429 (the native route shares the budget).
    await expect(
      turn(transport, 'limited-1', [userMessage('c', 'And digital goods?')]),
    ).rejects.toThrow(/rate_limited/);
  });

  it('a third new chat is refused by the create budget', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const limiter = createMemoryRateLimiter({ limit: 2, windowMs: 60_000, flood: false });
    const base = await serve(engine, { rateLimiter: limiter });
    const send = (chatId: string) =>
      fetch(`${base}/ui/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'frank' },
        body: JSON.stringify({ id: chatId, messages: [userMessage(chatId, 'Hello there')] }),
      });
    expect((await send('new-1')).status).toBe(200);
    limiter.reset(rateLimitKey('message', 'user', 'frank'));
    expect((await send('new-2')).status).toBe(200);
    limiter.reset(rateLimitKey('message', 'user', 'frank'));
    const third = await send('new-3');
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ message: 'Too many new conversations' });
  });

  it('an engine error reaches the client as an error part with a generic message', async () => {
    const engine = createChatEngine({
      llm: createMockLLM({
        responses: new ProviderError('upstream 500 at https://user:sk-secret@llm.internal', {
          provider: 'mock',
          status: 400,
        }),
      }),
    });
    await engine.ingest(handbook);
    const base = await serve(engine);
    const transport = new DefaultChatTransport<CortexisUIMessage>({
      api: `${base}/ui/chat`,
      headers: { 'x-user': 'gina' },
    });
    const { message, errors } = await turn(transport, 'failing', [
      userMessage('f1', 'What is the refund policy?'),
    ]);
    expect(errors.map((error) => error.message)).toEqual([
      'The model is unavailable; please try again later',
    ]);
    expect(JSON.stringify(message)).not.toMatch(/sk-secret|llm\.internal/);
    expect(message.metadata).toMatchObject({ status: 'error', code: 'provider_error' });
  });
});

describe('engine.stream(...).toUIMessageStreamResponse() from an own route', () => {
  it('is read by the real readUIMessageStream with the protocol headers', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const response = engine
      .stream({ message: 'How long does shipping take?', mode: 'query' })
      .toUIMessageStreamResponse({ messageId: 'answer-1', headers: { 'x-extra': 'yes' } });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-extra')).toBe('yes');
    // What DefaultChatTransport does with a response: parse and validate each chunk.
    const transport = new DefaultChatTransport<CortexisUIMessage>({
      fetch: async () => response,
    });
    const stream = await transport.sendMessages({
      chatId: 'own',
      messages: [userMessage('o1', 'How long does shipping take?')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    let message: CortexisUIMessage | undefined;
    for await (const snapshot of readUIMessageStream<CortexisUIMessage>({
      stream: stream as ReadableStream<UIMessageChunk>,
      terminateOnError: true,
    }))
      message = snapshot;
    expect(message!.id).toBe('answer-1');
    expect(textOf(message!)).toMatch(/business days/);
    expect(message!.parts.some((part) => part.type === 'source-document')).toBe(true);
    expect(message!.parts.find((part) => part.type === 'data-route')?.data.route).toBeTypeOf(
      'string',
    );
    expect(message!.metadata).toMatchObject({ status: 'complete', sessionId: null });
  });
});
