import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortError, ProviderError, TimeoutError } from '../../src/errors/index.js';
import type { EmbeddingProvider } from '../../src/ports/embedding-provider.js';
import { createChatEngine } from '../../src/engine.js';
import type {
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
} from '../../src/ports/llm-provider.js';
import { CircuitOpenError, RetryError } from '../../src/resilience/errors.js';
import {
  createResilientEmbedder,
  createResilientLLM,
  type ProviderRateLimitEvent,
  type ResilienceBreakerEvent,
  type ResilienceRetryEvent,
} from '../../src/resilience/resilient-llm.js';
import type { ResilienceSettingsInput } from '../../src/resilience/settings.js';
import { createMockLLM, type MockLLMSettings } from '../../src/testing/mock-llm.js';
import { handbook } from '../fixtures/handbook.js';

afterEach(() => {
  vi.useRealTimers();
});

const http = (status: number, retryAfterMs?: number) =>
  new ProviderError(`HTTP ${status}`, { provider: 'mock', status, retryAfterMs });

const request: LLMRequest = { messages: [{ role: 'user', content: 'What is the refund policy?' }] };

function setup(responses: MockLLMSettings['responses'], settings: ResilienceSettingsInput = {}) {
  let time = 5_000_000;
  const sleeps: number[] = [];
  const retries: ResilienceRetryEvent[] = [];
  const breaker: ResilienceBreakerEvent[] = [];
  const rateLimits: ProviderRateLimitEvent[] = [];
  const mock = createMockLLM({ responses });
  const llm = createResilientLLM(
    mock,
    settings,
    {
      onRetry: (event) => retries.push(event),
      onBreaker: (event) => breaker.push(event),
      onRateLimit: (event) => rateLimits.push(event),
    },
    {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
      now: () => time,
    },
  );
  return {
    mock,
    llm,
    sleeps,
    retries,
    breaker,
    rateLimits,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

async function collect(parts: AsyncIterable<LLMStreamPart>) {
  const seen: LLMStreamPart[] = [];
  try {
    for await (const part of parts) seen.push(part);
    return { parts: seen, error: undefined };
  } catch (error) {
    return { parts: seen, error };
  }
}

const textOf = (parts: readonly LLMStreamPart[]) =>
  parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');

describe('createResilientLLM: generate', () => {
  it('keeps the wrapped provider’s name and metadata', () => {
    const { llm, mock } = setup('ok');
    expect(llm.name).toBe(mock.name);
    expect(llm.specificationVersion).toBe('v1');
    expect(llm.metadata).toEqual(mock.metadata);
    expect(llm.inner).toBe(mock);
    expect(llm.settings.retries).toBe(2);
  });

  it('retries a 503 and returns the answer of the next attempt, reporting the retry', async () => {
    const { llm, mock, retries, sleeps } = setup([http(503), 'Refunds take 14 days.']);
    const result = await llm.generate(request);
    expect(result.text).toBe('Refunds take 14 days.');
    expect(mock.calls).toHaveLength(2);
    expect(sleeps).toEqual([375]); // 500 ms base, equal jitter at 0.5
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      provider: 'mock',
      operation: 'generate',
      key: 'mock',
      attempt: 1,
      delayMs: 375,
    });
  });

  it('does not retry a 401', async () => {
    const unauthorized = http(401);
    const { llm, mock, retries } = setup([unauthorized, 'never']);
    await expect(llm.generate(request)).rejects.toBe(unauthorized);
    expect(mock.calls).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('honours Retry-After of a 429 and reports the provider rate limit', async () => {
    const { llm, sleeps, rateLimits } = setup([http(429, 3_000), 'ok']);
    await expect(llm.generate(request)).resolves.toMatchObject({ text: 'ok' });
    expect(sleeps).toEqual([3_000]);
    expect(rateLimits).toHaveLength(1);
    expect(rateLimits[0]).toMatchObject({
      provider: 'mock',
      operation: 'generate',
      retryAfterMs: 3_000,
    });
  });

  it('fails with a RetryError keeping all three attempts when every attempt fails', async () => {
    const { llm, mock } = setup([http(500), http(502), http(503)]);
    const error = (await llm.generate(request).catch((caught: unknown) => caught)) as RetryError;
    expect(RetryError.isInstance(error)).toBe(true);
    expect(error.errors.map((attempt) => (attempt as ProviderError).status)).toEqual([
      500, 502, 503,
    ]);
    expect(error.code).toBe('provider_error');
    expect(mock.calls).toHaveLength(3);
  });

  it('times out a slow call with TimeoutError, and retries it', async () => {
    vi.useFakeTimers();
    const { llm, mock } = setup([{ text: 'late', delayMs: 5_000 }, 'fast'], {
      timeoutMs: 1_000,
      retries: 1,
    });
    const result = llm.generate(request);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(result).resolves.toMatchObject({ text: 'fast' });
    expect(mock.calls).toHaveLength(2);
  });

  it('rejects with TimeoutError when the last attempt times out', async () => {
    vi.useFakeTimers();
    const { llm } = setup({ text: 'late', delayMs: 5_000 }, { timeoutMs: 1_000, retries: 0 });
    const result = llm.generate(request).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(TimeoutError.isInstance(await result)).toBe(true);
  });

  it('rejects with AbortError when the caller aborts, without retrying or counting a failure', async () => {
    vi.useFakeTimers();
    const { llm, mock } = setup({ text: 'late', delayMs: 5_000 });
    const controller = new AbortController();
    const result = llm
      .generate({ ...request, signal: controller.signal })
      .catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    expect(AbortError.isInstance(await result)).toBe(true);
    expect(mock.calls).toHaveLength(1);
    expect(llm.breakerState().failures).toBe(0);
  });
});

describe('createResilientLLM: circuit breaker', () => {
  it('opens after 5 failed calls and then throws CircuitOpenError without calling the provider', async () => {
    const { llm, mock, breaker } = setup(http(503), { retries: 0 });
    for (let index = 0; index < 5; index++) {
      await expect(llm.generate(request)).rejects.toThrow('HTTP 503');
    }
    expect(breaker).toHaveLength(1);
    expect(breaker[0]).toMatchObject({ provider: 'mock', key: 'mock', state: 'open', failures: 5 });
    const error = await llm.generate(request).catch((caught: unknown) => caught);
    expect(CircuitOpenError.isInstance(error)).toBe(true);
    expect((error as CircuitOpenError).retryAfterMs).toBe(30_000);
    const streamed = await collect(llm.stream(request));
    expect(CircuitOpenError.isInstance(streamed.error)).toBe(true);
    expect(mock.calls).toHaveLength(5);
    expect(llm.breakerState()).toMatchObject({ state: 'open', retryAfterMs: 30_000 });
  });

  it('counts failed calls, not attempts: two calls of 3 attempts leave it closed, five open it', async () => {
    const { llm, mock, breaker } = setup(http(503));
    for (let index = 0; index < 2; index++) {
      await expect(llm.generate(request)).rejects.toSatisfy((error) =>
        RetryError.isInstance(error),
      );
    }
    expect(mock.calls).toHaveLength(6);
    expect(llm.breakerState()).toMatchObject({ state: 'closed', failures: 2 });
    for (let index = 0; index < 3; index++) await llm.generate(request).catch(() => undefined);
    expect(breaker.map((event) => event.state)).toEqual(['open']);
    expect(mock.calls).toHaveLength(15);
    const refused = await llm.generate(request).catch((caught: unknown) => caught);
    expect(CircuitOpenError.isInstance(refused)).toBe(true);
    expect(mock.calls).toHaveLength(15);
  });

  it('counts a stream that fails after its retries once', async () => {
    const { llm, mock } = setup(http(503));
    const first = await collect(llm.stream(request));
    expect(RetryError.isInstance(first.error)).toBe(true);
    expect(mock.calls).toHaveLength(3);
    expect(llm.breakerState()).toMatchObject({ state: 'closed', failures: 1 });
  });

  it('stops retrying when other calls opened the breaker meanwhile', async () => {
    let llm: ReturnType<typeof createResilientLLM> | undefined;
    const mock = createMockLLM({ responses: http(503) });
    llm = createResilientLLM(
      mock,
      {},
      {},
      {
        sleep: async () => {
          // Five other calls fail while this one waits to retry.
          for (let index = 0; index < 5; index++) llm!.breaker!.acquire('mock').failure(http(503));
        },
        random: () => 0.5,
      },
    );
    const error = await llm.generate(request).catch((caught: unknown) => caught);
    expect(CircuitOpenError.isInstance(error)).toBe(true);
    expect(mock.calls).toHaveLength(1);
  });

  it('lets one trial through after the cooldown; its success closes the breaker', async () => {
    const failures = Array.from({ length: 5 }, () => http(503));
    const { llm, mock, breaker, advance } = setup([...failures, 'back'], { retries: 0 });
    for (let index = 0; index < 5; index++) await llm.generate(request).catch(() => undefined);
    advance(30_000);
    await expect(llm.generate(request)).resolves.toMatchObject({ text: 'back' });
    expect(breaker.map((event) => event.state)).toEqual(['open', 'half-open', 'closed']);
    expect(mock.calls).toHaveLength(6);
  });

  it('keys the breaker per conversation when breakerScope is conversation', async () => {
    const { llm, mock } = setup(
      (request: LLMRequest) => (request.messages.at(-1)?.content === 'broken' ? http(500) : 'fine'),
      { retries: 0, breakerScope: 'conversation' },
    );
    const a = llm.withContext({ conversationId: 'a' });
    const b = llm.withContext({ conversationId: 'b' });
    const broken: LLMRequest = { messages: [{ role: 'user', content: 'broken' }] };
    for (let index = 0; index < 5; index++) await a.generate(broken).catch(() => undefined);
    expect(llm.breakerState('a').state).toBe('open');
    expect(
      CircuitOpenError.isInstance(await a.generate(request).catch((caught: unknown) => caught)),
    ).toBe(true);
    await expect(b.generate(request)).resolves.toMatchObject({ text: 'fine' });
    expect(llm.breakerState('b').state).toBe('closed');
    expect(mock.calls).toHaveLength(6);
  });

  it('shares one breaker for all conversations by default', async () => {
    const { llm } = setup(http(500), { retries: 0 });
    for (let index = 0; index < 5; index++) {
      await llm
        .withContext({ conversationId: `c${index}` })
        .generate(request)
        .catch(() => undefined);
    }
    expect(llm.breakerState('another').state).toBe('open');
  });

  it('calls per-call hooks after the wrapper’s hooks', async () => {
    const { llm, retries } = setup([http(503), 'ok']);
    const mine: ResilienceRetryEvent[] = [];
    await llm.withContext({ hooks: { onRetry: (event) => mine.push(event) } }).generate(request);
    expect(retries).toHaveLength(1);
    expect(mine).toEqual(retries);
  });

  it('a throwing hook never breaks the call', async () => {
    const mock = createMockLLM({ responses: [http(503), 'ok'] });
    const llm = createResilientLLM(
      mock,
      {},
      {
        onRetry: () => {
          throw new Error('listener bug');
        },
      },
      { sleep: async () => {} },
    );
    await expect(llm.generate(request)).resolves.toMatchObject({ text: 'ok' });
  });

  it('can be turned off', async () => {
    const { llm, mock } = setup(http(503), { retries: 0, breaker: { enabled: false } });
    for (let index = 0; index < 8; index++) await llm.generate(request).catch(() => undefined);
    expect(mock.calls).toHaveLength(8);
    expect(llm.breaker).toBeUndefined();
  });
});

describe('createResilientLLM: stream', () => {
  it('retries a failure before the first delta, and streams the next attempt', async () => {
    const { llm, mock, retries } = setup([http(503), 'Refunds take 14 days.']);
    const { parts, error } = await collect(llm.stream(request));
    expect(error).toBeUndefined();
    expect(textOf(parts)).toBe('Refunds take 14 days.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
    expect(mock.calls.map((call) => call.method)).toEqual(['stream', 'stream']);
    expect(retries[0]).toMatchObject({ operation: 'stream', attempt: 1 });
  });

  it('never retries after the first delta: the failure propagates as is', async () => {
    const cut = http(502);
    const { llm, mock, retries } = setup([
      { chunks: ['Refunds', ' take'], errorAfter: cut },
      'A second answer that must not be streamed.',
    ]);
    const { parts, error } = await collect(llm.stream(request));
    expect(error).toBe(cut);
    expect(textOf(parts)).toBe('Refunds take');
    expect(mock.calls).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('retries a first-byte timeout', async () => {
    vi.useFakeTimers();
    const { llm, mock } = setup([{ text: 'late', delayMs: 5_000 }, 'on time'], {
      firstByteTimeoutMs: 1_000,
      retries: 1,
    });
    const result = collect(llm.stream(request));
    await vi.advanceTimersByTimeAsync(1_000);
    const { parts, error } = await result;
    expect(error).toBeUndefined();
    expect(textOf(parts)).toBe('on time');
    expect(mock.calls).toHaveLength(2);
  });

  it('ends with an idle TimeoutError, not a retry, when the stream stalls after a delta', async () => {
    vi.useFakeTimers();
    const mock = createMockLLM({ responses: 'one two three', chunkDelayMs: 5_000 });
    const llm = createResilientLLM(mock, { idleTimeoutMs: 1_000 }, {}, { sleep: async () => {} });
    const result = collect(llm.stream(request));
    await vi.advanceTimersByTimeAsync(1_000);
    const { parts, error } = await result;
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(textOf(parts)).toBe('one');
    expect(mock.calls).toHaveLength(1);
  });

  it('counts a stream the consumer left after text as a success', async () => {
    const { llm } = setup('one two three', { retries: 0 });
    for await (const part of llm.stream(request)) {
      if (part.type === 'text-delta') break;
    }
    expect(llm.breakerState().failures).toBe(0);
  });
});

describe('createResilientEmbedder', () => {
  function flakyEmbedder(failures: unknown[]): EmbeddingProvider & { calls: number } {
    const embedder = {
      name: 'flaky',
      specificationVersion: 'v1' as const,
      id: 'flaky-3',
      dimensions: 3,
      maxBatchSize: 8,
      calls: 0,
      async embed(texts: readonly string[]) {
        embedder.calls++;
        const failure = failures.shift();
        if (failure) throw failure;
        return texts.map(() => Float32Array.from([1, 0, 0]));
      },
    };
    return embedder;
  }

  it('keeps the embedder’s description and retries retryable failures', async () => {
    const inner = flakyEmbedder([http(503)]);
    const embedder = createResilientEmbedder(inner, {}, {}, { sleep: async () => {} });
    expect(embedder).toMatchObject({
      name: 'flaky',
      id: 'flaky-3',
      dimensions: 3,
      maxBatchSize: 8,
    });
    expect('similarityRange' in embedder).toBe(false);
    const vectors = await embedder.embed(['a', 'b']);
    expect(vectors).toHaveLength(2);
    expect(inner.calls).toBe(2);
  });

  it('opens its breaker after 5 failures and refuses without calling the embedder', async () => {
    const inner = flakyEmbedder(Array.from({ length: 10 }, () => http(500)));
    const embedder = createResilientEmbedder(inner, { retries: 0 }, {}, { sleep: async () => {} });
    for (let index = 0; index < 5; index++) await embedder.embed(['a']).catch(() => undefined);
    const error = await embedder.embed(['a']).catch((caught: unknown) => caught);
    expect(CircuitOpenError.isInstance(error)).toBe(true);
    expect(inner.calls).toBe(5);
  });
});

describe('a model’s non-string output', () => {
  /** A provider that answers `value` as its text (generate) or as its only delta (stream). */
  const returning = (value: unknown): LLMProvider => ({
    name: 'odd-model',
    specificationVersion: 'v1',
    metadata: { provider: 'odd-model', model: 'odd-1', contextWindow: 8_192 },
    generate: () => Promise.resolve({ text: value, finishReason: 'stop' } as unknown as LLMResult),
    async *stream() {
      yield { type: 'text-delta', text: value } as unknown as LLMStreamPart;
      yield { type: 'finish', finishReason: 'stop' };
    },
  });
  const odd: [string, unknown][] = [
    ['{}', {}],
    ['an object', { content: 'Refunds take 14 days.' }],
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an array', ['Refunds']],
  ];

  it.each(odd)('is a non-retryable ProviderError naming the provider (%s)', async (_, value) => {
    let calls = 0;
    const inner = returning(value);
    const counted: LLMProvider = {
      ...inner,
      generate: (r) => {
        calls++;
        return inner.generate(r);
      },
    };
    const llm = createResilientLLM(counted, { retries: 3, minDelayMs: 1, maxDelayMs: 1 });
    const generated = await llm.generate(request).catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(generated)).toBe(true);
    expect((generated as ProviderError).retryable).toBe(false);
    expect((generated as ProviderError).provider).toBe('odd-model');
    expect((generated as Error).message).toContain('odd-model');
    expect((generated as Error).message).not.toContain('[object Object]');
    expect(calls).toBe(1);

    const deltas: unknown[] = [];
    const streamed = await (async () => {
      for await (const part of llm.stream(request))
        if (part.type === 'text-delta') deltas.push(part);
    })().catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(streamed)).toBe(true);
    expect((streamed as ProviderError).retryable).toBe(false);
    expect(deltas).toEqual([]);
  });

  it('a result or part that is no object at all is a ProviderError too', async () => {
    const llm = createResilientLLM({
      ...returning(''),
      generate: () => Promise.resolve('Refunds take 14 days.' as unknown as LLMResult),
      async *stream() {
        yield null as unknown as LLMStreamPart;
      },
    });
    expect(ProviderError.isInstance(await llm.generate(request).catch((e: unknown) => e))).toBe(
      true,
    );
    const streamed = await (async () => {
      for await (const _part of llm.stream(request));
    })().catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(streamed)).toBe(true);
  });

  it('fails the turn with a typed error and stores no "undefined" / "[object Object]" answer', async () => {
    for (const [label, value] of odd) {
      for (const streaming of [false, true]) {
        const engine = createChatEngine({
          llm: returning(value),
          rateLimit: { enabled: false },
          smallTalk: false,
          retrieval: { minSimilarity: 0 },
          rewrite: { llm: 'never' },
        });
        await engine.ingest(handbook);
        const session = await engine.createSession({ userId: 'u1' });
        const ask = { sessionId: session.id, userId: 'u1', message: 'How long do refunds take?' };
        let code: unknown;
        if (streaming) {
          const stream = engine.stream(ask);
          for await (const part of stream) if (part.type === 'error') code = part.error.code;
        } else {
          const error = await engine.chat(ask).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          expect(ProviderError.isInstance(error), label).toBe(true);
          code = (error as ProviderError).code;
        }
        expect(code, `${label}, streaming ${streaming}`).toBe('provider_error');
        await engine.flush();
        const page = await engine.history({ sessionId: session.id, userId: 'u1' });
        expect(page.messages[0]?.content).toBe(ask.message);
        for (const message of page.messages) {
          expect(message.content).not.toMatch(/^(undefined|null|42|\[object Object\])$/);
          expect(message.content).not.toContain('[object Object]');
          if (message.role === 'assistant') expect(message.status).not.toBe('complete');
        }
      }
    }
  });
});

describe('createResilientLLM: deadline of a whole call', () => {
  it('makes no retry whose wait would pass deadlineMs (retries and waits included)', async () => {
    let time = 0;
    const sleeps: number[] = [];
    const mock = createMockLLM({ responses: http(503) });
    const llm = createResilientLLM(
      mock,
      { retries: 5, minDelayMs: 600, maxDelayMs: 600, deadlineMs: 1_000 },
      {},
      {
        sleep: async (ms) => {
          sleeps.push(ms);
          time += ms;
        },
        random: () => 0.5,
        now: () => time,
      },
    );
    const error = await llm.generate(request).catch((caught: unknown) => caught);
    expect(RetryError.isInstance(error)).toBe(true);
    expect((error as RetryError).reason).toBe('deadline-exceeded');
    // 450 ms waits: after 0 and 450 ms a retry fits in 1 000 ms; after 900 ms it does not.
    expect(sleeps).toEqual([450, 450]);
    expect(mock.calls).toHaveLength(3);
  });

  it('cuts an attempt’s timeout to the time left', async () => {
    const mock = createMockLLM({ responses: { text: 'late', delayMs: 5_000 } });
    const llm = createResilientLLM(mock, { timeoutMs: 60_000, deadlineMs: 40, retries: 0 });
    const started = performance.now();
    const error = await llm.generate(request).catch((caught: unknown) => caught);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(40);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('bounds a stream until its first text, not after', async () => {
    const waiting = createMockLLM({ responses: { text: 'late', delayMs: 5_000 } });
    const cut = await collect(
      createResilientLLM(waiting, { deadlineMs: 40, retries: 0 }).stream(request),
    );
    expect(TimeoutError.isInstance(cut.error)).toBe(true);
    const slow = createMockLLM({ responses: 'a long answer', chunkDelayMs: 30 });
    const long = await collect(
      createResilientLLM(slow, { deadlineMs: 40, retries: 0 }).stream(request),
    );
    expect(long.error).toBeUndefined();
    expect(textOf(long.parts)).toBe('a long answer');
  });

  it('is off with deadlineMs 0', async () => {
    const { llm, mock } = setup(http(503), { deadlineMs: 0, retries: 3 });
    await llm.generate(request).catch(() => undefined);
    expect(mock.calls).toHaveLength(4);
  });
});
