import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providerFromEnv } from '../src/adapters/providers/index.js';
import { ConfigError } from '../src/errors/index.js';
import { createChatEngine, createMemorySessionStore, type EngineConfig } from '../src/index.js';
import { createMockLLM } from '../src/testing/index.js';
import { startLoopback, type Loopback } from './adapters/http/loopback.js';
import { handbook } from './fixtures/handbook.js';

let server: Loopback | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

describe('the engine never reads the environment', () => {
  /** Sets every variable that used to switch the engine to a remote provider. */
  async function providerVariablesPointingAtLoopback(): Promise<Loopback> {
    const loopback = await startLoopback((_request, response) => {
      response.writeHead(500).end();
    });
    vi.stubEnv('OPENAI_API_KEY', 'sk-test-key');
    vi.stubEnv('OPENAI_BASE_URL', `${loopback.url}/v1`);
    vi.stubEnv('OPENAI_MODEL', 'remote-model');
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-test-key');
    vi.stubEnv('ANTHROPIC_BASE_URL', loopback.url);
    vi.stubEnv('OLLAMA_HOST', loopback.url);
    return loopback;
  }

  it('createChatEngine() answers with the extractive model and sends nothing, whatever is set', async () => {
    server = await providerVariablesPointingAtLoopback();
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const engine = createChatEngine();
      await engine.ingest(handbook);
      const chat = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
      const streamed = await engine.stream({ message: 'How fast are refunds?', mode: 'query' })
        .response;
      await engine.search('refund policy');
      await engine.flush();
      expect(chat.model).toBe('extractive-v1');
      expect(streamed.model).toBe('extractive-v1');
      expect(chat.text.length).toBeGreaterThan(0);
      expect(server.requests).toHaveLength(0);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it('reads no provider variable while it is created and runs a turn', async () => {
    server = await providerVariablesPointingAtLoopback();
    const original = process.env;
    const reads = new Set<string>();
    process.env = new Proxy(original, {
      get(target, key, receiver) {
        if (typeof key === 'string') reads.add(key);
        return Reflect.get(target, key, receiver);
      },
      has(target, key) {
        if (typeof key === 'string') reads.add(key);
        return Reflect.has(target, key);
      },
    });
    try {
      const engine = createChatEngine();
      await engine.ingest(handbook);
      await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
      await engine.flush();
    } finally {
      process.env = original;
    }
    expect([...reads].filter((key) => /OPENAI|ANTHROPIC|OLLAMA/.test(key))).toEqual([]);
  });

  it('uses a provider only when the caller passes one (here from providerFromEnv)', async () => {
    const stream = await readFile(
      join(import.meta.dirname, 'fixtures/providers/openai-chat-stream.sse'),
      'utf8',
    );
    server = await startLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(stream);
    });
    const provider = providerFromEnv({
      OPENAI_API_KEY: 'sk-test-key',
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'local-model',
    });
    const engine = createChatEngine({ llm: provider!.llm });
    await engine.ingest(handbook);
    const reply = await engine.stream({ message: 'What is the refund policy?', mode: 'query' })
      .response;
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer sk-test-key');
    expect(request!.body).toMatchObject({ model: 'local-model', stream: true });
    expect(request!.body.messages[0].role).toBe('system');
    // The sources travel fenced in a user message before the question, never as system text.
    expect(request!.body.messages[0].content).not.toContain('<source id=');
    expect(request!.body.messages.at(-2)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('<source id="S1"'),
    });
    expect(reply.model).toBe('local-model');
    expect(reply.text.length).toBeGreaterThan(0);
  });

  it('rejects the removed providerFromEnvironment key with a ConfigError naming its replacement', () => {
    for (const value of [true, false]) {
      let caught: unknown;
      try {
        createChatEngine({ providerFromEnvironment: value } as EngineConfig);
      } catch (error) {
        caught = error;
      }
      expect(ConfigError.isInstance(caught)).toBe(true);
      const error = caught as ConfigError;
      expect(error.issues).toHaveLength(1);
      expect(error.issues[0]?.path).toBe('providerFromEnvironment');
      expect(error.issues[0]?.message).toMatch(/never reads the environment/);
      expect(error.message).toMatch(/providerFromEnv\(process\.env\)/);
      expect(error.message).toMatch(/cortexis\/providers/);
    }
    // Other unknown keys are still reported as such.
    expect(() => createChatEngine({ providerFromEnv: true } as EngineConfig)).toThrow(
      /providerFromEnv: unknown key/,
    );
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
        // The breaker counts failed calls (after the retry), so two in a row open it here.
        breaker: { failureThreshold: 2, windowMs: 60_000, cooldownMs: 50 },
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
