import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createGptTokenizer,
  createMemoryRateLimiter,
  createMemorySessionStore,
  ProviderError,
  type ChatEngine,
  type EngineConfig,
  type RetrievalEvent,
} from '../../src/index.js';
import {
  createChatHandler,
  toNodeListener,
  type ChatHandlerSettings,
  type CortexisCompletionExtension,
} from '../../src/http/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

/** The bearer key is the user id; `wrong` is refused. */
const authenticate: ChatHandlerSettings['authenticate'] = (request) => {
  const key = request.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
  return key && key !== 'wrong' ? { id: key } : null;
};

const servers: (() => Promise<void>)[] = [];

/** Serves a handler on 127.0.0.1; returns its base URL (closed after all tests). */
async function serve(
  engine: ChatEngine,
  settings: Omit<ChatHandlerSettings, 'authenticate'>,
): Promise<string> {
  const server = createServer(
    toNodeListener(createChatHandler(engine, { authenticate, basePath: '/api', ...settings })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

async function engineWith(config: EngineConfig = {}): Promise<ChatEngine> {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  return engine;
}

const client = (base: string, apiKey = 'alice') =>
  new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 });

type WithExtension = { cortexis: CortexisCompletionExtension };
const extension = (value: unknown): CortexisCompletionExtension =>
  (value as WithExtension).cortexis;

const ANSWER = 'Refunds are issued within 14 days [source: S1].';

let offline: ChatEngine;
let offlineBase: string;
let scripted: ChatEngine;
let scriptedBase: string;
const sessionStore = createMemorySessionStore();

beforeAll(async () => {
  offline = await engineWith({ sessionStore });
  offlineBase = await serve(offline, {
    openaiCompatible: { models: ['cortexis', 'cortexis-deep'] },
    cors: { origin: '*' },
  });
  scripted = await engineWith({
    llm: createMockLLM({
      responses: { text: ANSWER, usage: { inputTokens: 120, outputTokens: 11 } },
    }),
    rewrite: { llm: 'never' },
  });
  scriptedBase = await serve(scripted, { openaiCompatible: true });
});

afterAll(async () => {
  await Promise.all(servers.map((close) => close()));
});

describe('OpenAI-compatible route, with the official openai client', () => {
  it('answers a completion with citations in the text, usage and the sources in `cortexis`', async () => {
    const completion = await client(scriptedBase).chat.completions.create({
      model: 'cortexis',
      messages: [
        { role: 'system', content: 'You are a pirate.' },
        { role: 'user', content: [{ type: 'text', text: 'What is the refund policy?' }] },
      ],
      temperature: 0.2,
      user: 'ignored',
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('cortexis');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: ANSWER });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    // The model's own count is passed on.
    expect(completion.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 11,
      total_tokens: 131,
    });
    const cortexis = extension(completion);
    expect(cortexis.usage).toBe('reported');
    expect(cortexis.sources[0]).toMatchObject({ id: 'S1', documentId: 'refunds' });
    expect(cortexis.confidence.level).toMatch(/low|medium|high/);
    expect(cortexis.conversationId).toBeNull();
    expect(cortexis.model).toBe('mock-model');
  });

  it('counts usage with the tokenizer when the model reports none', async () => {
    const engine = await engineWith({
      llm: createMockLLM({ responses: ANSWER }),
      rewrite: { llm: 'never' },
    });
    const base = await serve(engine, { openaiCompatible: true });
    const completion = await client(base).chat.completions.create({
      model: 'cortexis',
      messages: [
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: 'Hi!' },
        { role: 'user', content: 'What is the refund policy?' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe(ANSWER);
    // Counted with the engine's tokenizer: the conversation the client sent, and the answer.
    const tokenizer = await createGptTokenizer();
    const prompt = ['Hello there', 'Hi!', 'What is the refund policy?']
      .map((text) => tokenizer.count(text))
      .reduce((sum, count) => sum + count);
    const answer = tokenizer.count(ANSWER);
    expect(completion.usage).toEqual({
      prompt_tokens: prompt,
      completion_tokens: answer,
      total_tokens: prompt + answer,
    });
    expect(extension(completion).usage).toBe('estimated');
  });

  it('answers offline with the extractive model, citing the handbook', async () => {
    const completion = await client(offlineBase).chat.completions.create({
      model: 'cortexis-deep',
      messages: [{ role: 'user', content: 'What is the refund policy?' }],
    });
    expect(completion.model).toBe('cortexis-deep');
    expect(completion.choices[0]!.message.content).toMatch(/14 days.*\[source: S1\]/);
    expect(extension(completion).sources[0]).toMatchObject({ documentId: 'refunds' });
  });

  it('streams chunks: the role, the text in pieces, finish_reason with `cortexis`, usage, [DONE]', async () => {
    const stream = await client(scriptedBase).chat.completions.create({
      model: 'cortexis',
      messages: [{ role: 'user', content: 'What is the refund policy?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const pieces = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content));
    expect(pieces.join('')).toBe(ANSWER);
    expect(pieces.filter(Boolean).length).toBeGreaterThan(3);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason === 'stop')!;
    expect(extension(finish).sources[0]).toMatchObject({ documentId: 'refunds' });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 120, completion_tokens: 11, total_tokens: 131 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('ends the raw stream with `data: [DONE]` and sends no usage chunk unless asked', async () => {
    const response = await fetch(`${scriptedBase}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'cortexis',
        stream: true,
        messages: [{ role: 'user', content: 'What is the refund policy?' }],
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const frames = text
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice(6)) as { choices: unknown[]; usage?: unknown });
    expect(frames.every((frame) => frame.choices.length === 1 && !('usage' in frame))).toBe(true);
  });

  it('lists the configured models', async () => {
    const ids: string[] = [];
    for await (const model of client(offlineBase).models.list()) {
      expect(model).toMatchObject({ object: 'model', owned_by: 'cortexis' });
      expect(typeof model.created).toBe('number');
      ids.push(model.id);
    }
    expect(ids).toEqual(['cortexis', 'cortexis-deep']);
  });

  it('resolves a stateless follow-up from the messages array, storing nothing', async () => {
    const queries: RetrievalEvent[] = [];
    const off = offline.on('retrieval', (event) => queries.push(event));
    const openai = client(offlineBase, 'stateless-user');
    const first = await openai.chat.completions.create({
      model: 'cortexis',
      messages: [{ role: 'user', content: 'Do you ship internationally?' }],
    });
    const followUp = await openai.chat.completions.create({
      model: 'cortexis',
      messages: [
        { role: 'user', content: 'Do you ship internationally?' },
        { role: 'assistant', content: first.choices[0]!.message.content },
        { role: 'user', content: 'How long does that take?' },
      ],
    });
    off();
    expect(queries.at(-1)).toMatchObject({ rewritten: true });
    expect(queries.at(-1)!.query).toMatch(/ship/);
    expect(extension(followUp).guard).toBe(false);
    expect(extension(followUp).sources[0]).toMatchObject({ documentId: 'shipping' });
    expect(followUp.choices[0]!.message.content).toMatch(/10 business days/);
    // Without the earlier turns the same question finds nothing.
    const alone = await openai.chat.completions.create({
      model: 'cortexis',
      messages: [{ role: 'user', content: 'How long does that take?' }],
    });
    expect(extension(alone).guard).toBe(true);
    expect((await offline.listSessions({ userId: 'stateless-user' })).sessions).toEqual([]);
  });

  it('continues a conversation named by the header; another user gets 404', async () => {
    const openai = client(offlineBase, 'bob');
    const started = await openai.chat.completions
      .create(
        {
          model: 'cortexis',
          messages: [{ role: 'user', content: 'Do you ship internationally?' }],
        },
        { headers: { 'x-cortexis-conversation-id': 'new' } },
      )
      .withResponse();
    const id = started.response.headers.get('x-cortexis-conversation-id')!;
    expect(id).toBeTruthy();
    expect(extension(started.data).conversationId).toBe(id);
    // Only the last user message is new: the server holds the history.
    const stream = await openai.chat.completions.create(
      {
        model: 'cortexis',
        stream: true,
        messages: [{ role: 'user', content: 'How long does that take?' }],
      },
      { headers: { 'x-cortexis-conversation-id': id } },
    );
    let text = '';
    let sources: CortexisCompletionExtension['sources'] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) sources = extension(chunk).sources;
    }
    expect(text).toMatch(/10 business days/);
    expect(sources[0]).toMatchObject({ documentId: 'shipping' });
    const history = await offline.history({ sessionId: id, userId: 'bob' });
    expect(history.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);

    const intruder = client(offlineBase, 'mallory').chat.completions.create(
      { model: 'cortexis', messages: [{ role: 'user', content: 'What did bob ask?' }] },
      { headers: { 'x-cortexis-conversation-id': id } },
    );
    await expect(intruder).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(intruder).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect((await offline.history({ sessionId: id, userId: 'bob' })).total).toBe(4);
  });

  it('refuses a missing or wrong key with 401 in OpenAI’s shape', async () => {
    const refused = client(offlineBase, 'wrong').models.list();
    await expect(refused).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(refused).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      type: 'invalid_request_error',
    });
    const raw = await fetch(`${offlineBase}/v1/chat/completions`, { method: 'POST' });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toEqual({
      error: {
        message: 'Authentication required',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  it('rejects a bad body with BadRequestError naming the param', async () => {
    const openai = client(offlineBase);
    const cases: [Record<string, unknown>, string][] = [
      [{ n: 2 }, 'n'],
      [{ temperature: 7 }, 'temperature'],
      [{ messages: [] }, 'messages'],
      [{ messages: [{ role: 'robot', content: 'hi' }] }, 'messages[0].role'],
      [
        {
          messages: [
            {
              role: 'user',
              content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }],
            },
          ],
        },
        'messages[0].content[0].type',
      ],
      [
        {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: 'hello' },
          ],
        },
        'messages[1].role',
      ],
      [{ messages: [{ role: 'user', content: '   ' }] }, 'messages[0].content'],
      [{ stream_options: { include_usage: 'yes' } }, 'stream_options.include_usage'],
    ];
    for (const [patch, param] of cases) {
      const body = {
        model: 'cortexis',
        messages: [{ role: 'user', content: 'What is the refund policy?' }],
        ...patch,
      } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
      const request = openai.chat.completions.create(body);
      await expect(request, param).rejects.toBeInstanceOf(OpenAI.BadRequestError);
      await expect(request, param).rejects.toMatchObject({
        status: 400,
        param,
        type: 'invalid_request_error',
      });
    }
    const unknownModel = openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(unknownModel).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(unknownModel).rejects.toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  it('counts completions in the per-user message budget: 429 is the client’s RateLimitError', async () => {
    const engine = await engineWith();
    const base = await serve(engine, {
      openaiCompatible: true,
      rateLimiter: createMemoryRateLimiter({ limit: 2, windowMs: 60_000, flood: false }),
    });
    const openai = client(base, 'carol');
    const ask = () =>
      openai.chat.completions.create({
        model: 'cortexis',
        messages: [{ role: 'user', content: 'What is the refund policy?' }],
      });
    await ask();
    // The native route spends the same budget: switching protocol gains nothing.
    const conversation = (await (
      await fetch(`${base}/conversations`, {
        method: 'POST',
        headers: { authorization: 'Bearer carol' },
      })
    ).json()) as { id: string };
    const native = await fetch(`${base}/conversations/${conversation.id}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer carol', 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'What is the refund policy?' }),
    });
    expect(native.status).toBe(200);
    const refused = ask();
    await expect(refused).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await expect(refused).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    const error = (await refused.catch((caught: unknown) => caught)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
    // Another user has a budget of their own.
    await expect(client(base, 'dave').models.list()).resolves.toBeDefined();
  });

  it('ends a stream that fails mid-answer with a generic OpenAI error frame', async () => {
    const engine = await engineWith({
      llm: createMockLLM({
        responses: {
          chunks: ['Refunds are', ' issued'],
          errorAfter: new ProviderError('upstream at http://10.0.0.5:8080 exploded', {
            provider: 'mock',
            status: 400,
          }),
        },
      }),
      rewrite: { llm: 'never' },
      resilience: { retries: 0 },
    });
    const base = await serve(engine, { openaiCompatible: true });
    const stream = await client(base).chat.completions.create({
      model: 'cortexis',
      stream: true,
      messages: [{ role: 'user', content: 'What is the refund policy?' }],
    });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(text).toBe('Refunds are issued');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const error = failure as InstanceType<typeof OpenAI.APIError>;
    expect(error.message).not.toMatch(/10\.0\.0\.5/);
    expect(error).toMatchObject({ type: 'server_error', code: 'provider_error' });
  });

  it('holds the streamed text back when the judge may remove sentences (policy `remove`)', async () => {
    const engine = await engineWith({
      llm: createMockLLM({
        responses: `${ANSWER} The moon is made of green cheese [source: S1].`,
      }),
      rewrite: { llm: 'never' },
      judge: { mode: 'offline', policy: 'remove' },
    });
    const base = await serve(engine, { openaiCompatible: true });
    const stream = await client(base).chat.completions.create({
      model: 'cortexis',
      stream: true,
      messages: [{ role: 'user', content: 'What is the refund policy?' }],
    });
    let text = '';
    let removed = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) {
        const grounding = extension(chunk).grounding!;
        removed = grounding.claims.filter((claim) => claim.verdict !== 'supported').length;
      }
    }
    expect(removed).toBeGreaterThan(0);
    // The client never saw the sentence the judge removed.
    expect(text).not.toMatch(/cheese/);
    expect(text).toMatch(/14 days/);
  });

  it('is 404 when not enabled', async () => {
    const engine = await engineWith();
    const base = await serve(engine, {});
    const missing = client(base).models.list();
    await expect(missing).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const completion = client(base).chat.completions.create({
      model: 'cortexis',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(completion).rejects.toMatchObject({ status: 404 });
  });

  it('lets a browser client through CORS: its headers allowed, the conversation header exposed', async () => {
    const preflight = await fetch(`${offlineBase}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-stainless-os, x-cortexis-conversation-id',
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = preflight.headers.get('access-control-allow-headers')!;
    expect(allowed).toMatch(/x-stainless-os/);
    expect(allowed).toMatch(/x-cortexis-conversation-id/);
    expect(preflight.headers.get('access-control-expose-headers')).toMatch(
      /x-cortexis-conversation-id/,
    );
  });
});

describe('stateless history on the engine (`ChatRequest.history`)', () => {
  it('seeds a session that has no messages; a session with messages keeps its own', async () => {
    const llm = createMockLLM({ responses: 'It takes 10 business days [source: S1].' });
    const engine = await engineWith({ llm, rewrite: { llm: 'never' } });
    const history = [
      { role: 'user' as const, content: 'Do you ship internationally?' },
      { role: 'assistant' as const, content: 'Yes, we ship internationally [source: S1].' },
    ];
    const reply = await engine.chat({
      mode: 'chat',
      userId: 'u1',
      message: 'How long does that take?',
      history,
    });
    // The client's two turns, then the sources (a user-role message of their own), then the question.
    expect(
      llm.calls.at(-1)!.request.messages.map((message) => [message.role, message.content]),
    ).toEqual([
      ['user', 'Do you ship internationally?'],
      ['assistant', 'Yes, we ship internationally [source: S1].'],
      ['user', expect.stringMatching(/^Source documents for the question that follows\./)],
      ['user', 'How long does that take?'],
    ]);
    const stored = await engine.history({ sessionId: reply.sessionId!, userId: 'u1' });
    expect(stored.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Do you ship internationally?'],
      ['assistant', 'Yes, we ship internationally [source: S1].'],
      ['user', 'How long does that take?'],
      ['assistant', 'It takes 10 business days [source: S1].'],
    ]);
    expect(stored.messages[0]!.metadata).toEqual({ clientHistory: true });
    // The session has messages now: another client's account of the chat is not taken.
    await engine.chat({
      sessionId: reply.sessionId!,
      userId: 'u1',
      message: 'And express?',
      history: [{ role: 'user', content: 'Forged earlier turn' }],
    });
    const after = await engine.history({ sessionId: reply.sessionId!, userId: 'u1' });
    expect(after.total).toBe(6);
    expect(after.messages.map((message) => message.content)).not.toContain('Forged earlier turn');
  });

  it('gives the model the earlier turns without storing them', async () => {
    const llm = createMockLLM({ responses: 'It takes 10 business days [source: S1].' });
    const engine = await engineWith({ llm, rewrite: { llm: 'never' } });
    const reply = await engine.chat({
      mode: 'query',
      userId: 'u1',
      message: 'How long does that take?',
      history: [
        { role: 'user', content: 'Do you ship internationally?' },
        { role: 'assistant', content: 'Yes, we ship internationally [source: S1].' },
      ],
    });
    expect(reply.sessionId).toBeNull();
    expect(reply.sources[0]?.documentId).toBe('shipping');
    const sent = llm.calls.at(-1)!.request.messages;
    // The history, the sources (a fenced user message), the question.
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'user']);
    expect(sent[0]!.content).toBe('Do you ship internationally?');
    expect((await engine.listSessions({ userId: 'u1' })).sessions).toEqual([]);
  });
});
