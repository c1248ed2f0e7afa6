import { describe, expect, it } from 'vitest';
import { createExtractiveProvider } from '../../src/adapters/extractive/provider.js';
import { AbortError, ProviderError } from '../../src/errors/index.js';
import { createChatEngine } from '../../src/engine.js';
import type { LLMRequest, LLMStreamPart } from '../../src/ports/llm-provider.js';
import { createFaultyLLM, createMockLLM, testLLMProvider } from '../../src/testing/index.js';

const request = (signal?: AbortSignal): LLMRequest => ({
  messages: [{ role: 'user', content: 'How long do refunds take?' }],
  ...(signal ? { signal } : {}),
});

async function read(stream: AsyncIterable<LLMStreamPart>) {
  const parts: LLMStreamPart[] = [];
  let error: unknown;
  try {
    for await (const part of stream) parts.push(part);
  } catch (caught) {
    error = caught;
  }
  const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
  return { parts, text, error, finished: parts.some((part) => part.type === 'finish') };
}

// Without a fault it is the provider it wraps, and passes the port's suite.
testLLMProvider({
  title: 'faulty LLM without faults',
  create: () => createFaultyLLM({ llm: createMockLLM({ responses: 'Refunds take 14 days.' }) }),
  deterministic: true,
});

describe('createFaultyLLM', () => {
  const answer = createMockLLM({ responses: 'Refunds take fourteen days.' });

  it('follows a per-call script: status error, cut stream, silent cut, then recovers', async () => {
    const llm = createFaultyLLM({
      llm: answer,
      faults: [
        { error: { status: 429, retryAfterMs: 1500 } },
        { cutAfterDeltas: 2 },
        { cutAfterDeltas: 1, silentCut: true },
      ],
    });
    const first = await read(llm.stream(request()));
    expect(ProviderError.isInstance(first.error)).toBe(true);
    expect((first.error as ProviderError).status).toBe(429);
    expect((first.error as ProviderError).retryAfterMs).toBe(1500);
    expect((first.error as ProviderError).retryable).toBe(true);
    expect(first.parts).toEqual([]);

    const second = await read(llm.stream(request()));
    expect(second.text).toBe('Refunds take');
    expect(ProviderError.isInstance(second.error)).toBe(true);
    expect(second.finished).toBe(false);

    const third = await read(llm.stream(request()));
    expect(third).toMatchObject({ text: 'Refunds', error: undefined, finished: false });

    const fourth = await read(llm.stream(request()));
    expect(fourth).toMatchObject({ text: 'Refunds take fourteen days.', finished: true });
    expect(llm.calls.map((call) => [call.outcome, call.deltas])).toEqual([
      ['failed', 0],
      ['cut', 2],
      ['cut', 1],
      ['complete', 4],
    ]);
    expect(llm.running).toBe(0);
  });

  it('generate fails on a status, on a cut, and answers otherwise', async () => {
    const llm = createFaultyLLM({
      llm: answer,
      faults: (_request, callIndex) =>
        callIndex === 0
          ? { error: { status: 400 } }
          : callIndex === 1
            ? { cutAfterDeltas: 0, cutError: new Error('connection reset') }
            : undefined,
    });
    const bad = await llm.generate(request()).catch((error: unknown) => error);
    expect((bad as ProviderError).status).toBe(400);
    expect((bad as ProviderError).retryable).toBe(false);
    await expect(llm.generate(request())).rejects.toThrow('connection reset');
    expect((await llm.generate(request())).text).toBe('Refunds take fourteen days.');
    expect(llm.calls.map((call) => call.outcome)).toEqual(['failed', 'cut', 'complete']);
  });

  it('a hanging call ends only when aborted, and is recorded as aborted', async () => {
    const llm = createFaultyLLM({ llm: answer, faults: { hang: true } });
    const controller = new AbortController();
    const pending = read(llm.stream(request(controller.signal)));
    // Count event-loop turns instead of waiting on the clock: the call must still be running.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(llm.running).toBe(1);
    expect(llm.calls[0]!.outcome).toBe('running');
    controller.abort();
    const result = await pending;
    expect(AbortError.isInstance(result.error)).toBe(true);
    expect(llm.calls[0]!.outcome).toBe('aborted');
    expect(llm.running).toBe(0);
  });

  it('aborting during a delay or between chunks rejects with an AbortError', async () => {
    const llm = createFaultyLLM({
      llm: answer,
      faults: [{ delayMs: 60_000 }, { chunkDelayMs: 60_000 }],
    });
    const first = new AbortController();
    const waiting = llm.generate(request(first.signal)).catch((error: unknown) => error);
    first.abort();
    expect(AbortError.isInstance(await waiting)).toBe(true);

    const second = new AbortController();
    const stream = llm.stream(request(second.signal))[Symbol.asyncIterator]();
    expect(await stream.next()).toEqual({
      done: false,
      value: { type: 'text-delta', text: 'Refunds' },
    });
    const next = stream.next().catch((error: unknown) => error);
    second.abort();
    expect(AbortError.isInstance(await next)).toBe(true);
    expect(llm.calls.map((call) => [call.outcome, call.deltas])).toEqual([
      ['aborted', 0],
      ['aborted', 1],
    ]);
  });

  it('a caller that stops reading leaves no call running', async () => {
    const llm = createFaultyLLM({ llm: answer });
    for await (const part of llm.stream(request())) if (part.type === 'text-delta') break;
    expect(llm.running).toBe(0);
    expect(llm.calls[0]!.outcome).toBe('aborted');
    llm.reset();
    expect(llm.calls).toEqual([]);
  });

  it('drives the engine: a stream cut mid-answer stores an incomplete answer, a 503 is retried', async () => {
    const llm = createFaultyLLM({
      llm: createExtractiveProvider(),
      faults: [{ error: { status: 503 } }, { cutAfterDeltas: 1 }],
    });
    const engine = createChatEngine({
      llm,
      resilience: { retries: 1, minDelayMs: 0, maxDelayMs: 0 },
    });
    await engine.ingest([
      { id: 'refunds', text: 'Refunds are issued within 14 days of the return being received.' },
    ]);
    const session = await engine.createSession({ userId: 'u1' });
    const parts = [];
    for await (const part of engine.stream({
      sessionId: session.id,
      userId: 'u1',
      message: 'How long do refunds take?',
    })) {
      parts.push(part);
    }
    expect(llm.calls.map((call) => call.outcome)).toEqual(['failed', 'cut']);
    expect(parts.some((part) => part.type === 'error')).toBe(true);
    const history = await engine.history({ sessionId: session.id, userId: 'u1' });
    expect(history.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'incomplete' });
  });

  it('hostile settings: a NUL name, a huge delay aborted at once, an empty script', async () => {
    const llm = createFaultyLLM({ name: 'bad\u0000name\ud800', faults: [] });
    expect(llm.name).toBe('bad\u0000name\ud800');
    expect((await llm.generate(request())).text).toBe('Mock answer.');
    const controller = new AbortController();
    controller.abort();
    const slow = createFaultyLLM({ faults: { delayMs: Number.MAX_SAFE_INTEGER } });
    const error = await slow
      .generate(request(controller.signal))
      .catch((caught: unknown) => caught);
    expect(AbortError.isInstance(error)).toBe(true);
  });
});
