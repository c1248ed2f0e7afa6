import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChatEngine, createMemorySessionStore } from '../src/index.js';
import { createMockLLM } from '../src/testing/index.js';
import { startLoopback, type Loopback } from './adapters/http/loopback.js';
import { handbook } from './fixtures/handbook.js';

let server: Loopback | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

describe('provider from the environment', () => {
  it('createChatEngine() uses an OpenAI-compatible server named by the environment, with no other change', async () => {
    const stream = await readFile(
      join(import.meta.dirname, 'fixtures/providers/openai-chat-stream.sse'),
      'utf8',
    );
    server = await startLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(stream);
    });
    vi.stubEnv('OPENAI_API_KEY', 'sk-test-key');
    vi.stubEnv('OPENAI_BASE_URL', `${server.url}/v1`);
    vi.stubEnv('OPENAI_MODEL', 'local-model');
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const reply = await engine.stream({ message: 'What is the refund policy?', mode: 'query' })
      .response;
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer sk-test-key');
    expect(request!.body).toMatchObject({ model: 'local-model', stream: true });
    expect(request!.body.messages[0].role).toBe('system');
    expect(request!.body.messages[0].content).toContain('<source id="S1"');
    expect(reply.model).toBe('local-model');
    expect(reply.text.length).toBeGreaterThan(0);
  });

  it('stays offline when told to ignore the environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test-key');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
    vi.stubEnv('OPENAI_MODEL', 'unused');
    const engine = createChatEngine({ providerFromEnvironment: false });
    await engine.ingest(handbook);
    const reply = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    expect(reply.model).toBe('extractive-v1');
  });
});

describe('fault matrix through the engine', () => {
  it('every turn ends as an answer, a degraded answer or a typed error, and no user message is lost', async () => {
    const store = createMemorySessionStore();
    // A provider failing in every way a provider fails, in a fixed cycle.
    const { ProviderError, TimeoutError } = await import('../src/errors/index.js');
    const cycle = [
      'Refunds are issued within 14 days [source: S1].',
      new ProviderError('HTTP 500', { provider: 'mock', status: 500 }),
      new ProviderError('HTTP 429', { provider: 'mock', status: 429, retryAfterMs: 5 }),
      new ProviderError('HTTP 401', { provider: 'mock', status: 401 }),
      new TimeoutError('slow first byte', 10),
      {
        chunks: ['Refunds are ', 'issued'],
        errorAfter: new ProviderError('cut', { provider: 'mock', retryable: true }),
      },
      'Answer with an invented citation [source: S9].',
    ];
    const llm = createMockLLM({ responses: (_request, index) => cycle[index % cycle.length]! });
    const engine = createChatEngine({
      llm,
      sessionStore: store,
      resilience: {
        retries: 1,
        minDelayMs: 1,
        maxDelayMs: 5,
        breaker: { failureThreshold: 3, windowMs: 60_000, cooldownMs: 50 },
      },
    });
    await engine.ingest(handbook);
    const session = await engine.createSession({ userId: 'u1' });
    const outcomes = { answered: 0, degraded: 0, error: 0 };
    const breaker: string[] = [];
    engine.on('breaker', (event) => breaker.push(event.state));
    for (let turn = 0; turn < 40; turn++) {
      const streaming = turn % 2 === 0;
      const request = { sessionId: session.id, message: `What is the refund policy? (${turn})` };
      try {
        const reply = streaming
          ? await engine.stream(request).response
          : await engine.chat(request);
        if (reply.status === 'degraded') outcomes.degraded++;
        else outcomes.answered++;
        expect(reply.text).not.toContain('S9');
      } catch (error) {
        expect(error).toHaveProperty('code');
        outcomes.error++;
      }
      if (turn % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 60)); // let the breaker cool down
    }
    const messages = await store.listMessages(session.id);
    const users = messages.filter((message) => message.role === 'user');
    expect(users).toHaveLength(40);
    expect(outcomes.answered + outcomes.degraded + outcomes.error).toBe(40);
    expect(outcomes.answered).toBeGreaterThan(0);
    expect(outcomes.error).toBeGreaterThan(0);
    expect(breaker).toContain('open');
    expect(outcomes.degraded).toBeGreaterThan(0);
  });
});
