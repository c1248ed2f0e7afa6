import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortError, ProviderError } from '../../src/errors/index.js';
import type { LLMRequest, LLMStreamPart } from '../../src/ports/llm-provider.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';

const request = (content = 'Hello?'): LLMRequest => ({
  messages: [{ role: 'user', content }],
});

async function collect(iterable: AsyncIterable<LLMStreamPart>): Promise<LLMStreamPart[]> {
  const parts: LLMStreamPart[] = [];
  for await (const part of iterable) parts.push(part);
  return parts;
}

const deltas = (parts: readonly LLMStreamPart[]): string[] =>
  parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));

describe('createMockLLM', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a default text and declares default metadata', async () => {
    const llm = createMockLLM();
    expect(await llm.generate(request())).toEqual({ text: 'Mock answer.', finishReason: 'stop' });
    expect(llm.metadata).toEqual({ provider: 'mock', model: 'mock-model', contextWindow: 8192 });
    expect(llm.name).toBe('mock');
    const custom = createMockLLM({ metadata: { contextWindow: 128, model: 'tiny' }, name: 'fake' });
    expect(custom.metadata).toMatchObject({ provider: 'mock', model: 'tiny', contextWindow: 128 });
    expect(custom.name).toBe('fake');
  });

  it('streams a text per word by default, ending with one finish part', async () => {
    const llm = createMockLLM({ responses: 'Refunds take  14 days.\n' });
    const parts = await collect(llm.stream(request()));
    expect(deltas(parts)).toEqual(['Refunds', ' take', '  14', ' days.\n']);
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
  });

  it('cuts chunks per character or every n characters', async () => {
    const perCharacter = createMockLLM({ responses: 'abc', chunking: 'character' });
    expect(deltas(await collect(perCharacter.stream(request())))).toEqual(['a', 'b', 'c']);
    const perThree = createMockLLM({ responses: 'abcdefg', chunking: 3 });
    expect(deltas(await collect(perThree.stream(request())))).toEqual(['abc', 'def', 'g']);
  });

  it('reports certainty, usage and finish reason of a full answer in both methods', async () => {
    const answer = {
      text: 'Cut off',
      certainty: 0.25,
      usage: { inputTokens: 12, outputTokens: 2 },
      finishReason: 'length',
      chunks: ['Cu', 't off'],
    } as const;
    const llm = createMockLLM({ responses: answer });
    expect(await llm.generate(request())).toEqual({
      text: 'Cut off',
      finishReason: 'length',
      certainty: 0.25,
      usage: { inputTokens: 12, outputTokens: 2 },
    });
    expect(await collect(llm.stream(request()))).toEqual([
      { type: 'text-delta', text: 'Cu' },
      { type: 'text-delta', text: 't off' },
      { type: 'finish', finishReason: 'length', certainty: 0.25, usage: answer.usage },
    ]);
  });

  it('uses a list in call order across both methods and repeats the last by default', async () => {
    const llm = createMockLLM({ responses: ['first', 'second'] });
    expect((await llm.generate(request())).text).toBe('first');
    expect(deltas(await collect(llm.stream(request())))).toEqual(['second']);
    expect((await llm.generate(request())).text).toBe('second');
  });

  it("throws once the list is exhausted with whenExhausted: 'throw'", async () => {
    const llm = createMockLLM({ responses: ['only'], whenExhausted: 'throw' });
    expect((await llm.generate(request())).text).toBe('only');
    await expect(llm.generate(request())).rejects.toThrow(/no scripted response for call 1/);
    await expect(collect(llm.stream(request()))).rejects.toThrow(/no scripted response/);
  });

  it('asks a responder function with the request and the call index', async () => {
    const llm = createMockLLM({
      responses: async (req, callIndex) =>
        `${callIndex}: ${req.messages.at(-1)?.content ?? ''}`.toUpperCase(),
    });
    expect((await llm.generate(request('a'))).text).toBe('0: A');
    expect(deltas(await collect(llm.stream(request('b'))))).toEqual(['1:', ' B']);
  });

  it('throws a scripted error from generate, and from stream before the first delta', async () => {
    const failure = new ProviderError('overloaded', { provider: 'mock', status: 503 });
    const llm = createMockLLM({ responses: failure });
    await expect(llm.generate(request())).rejects.toBe(failure);
    const seen: LLMStreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of llm.stream(request())) seen.push(part);
      })(),
    ).rejects.toBe(failure);
    expect(seen).toEqual([]);
  });

  it('breaks a stream mid-way after the scripted chunks', async () => {
    const broken = new ProviderError('connection reset', { provider: 'mock', retryable: true });
    const llm = createMockLLM({
      responses: { chunks: ['Partial', ' answer'], errorAfter: broken },
    });
    const seen: LLMStreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of llm.stream(request())) seen.push(part);
      })(),
    ).rejects.toBe(broken);
    expect(deltas(seen)).toEqual(['Partial', ' answer']);
    expect(seen.some((part) => part.type === 'finish')).toBe(false);
    await expect(llm.generate(request())).rejects.toBe(broken);
  });

  it('waits the scripted delay before answering', async () => {
    vi.useFakeTimers();
    const llm = createMockLLM({
      responses: [{ text: 'slow', delayMs: 1_000 }, 'fast'],
      delayMs: 0,
    });
    let settled = false;
    const pending = llm.generate(request()).then((result) => {
      settled = true;
      return result;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).text).toBe('slow');
    expect((await llm.generate(request())).text).toBe('fast');
  });

  it('ends a delay as soon as the request is aborted', async () => {
    const llm = createMockLLM({ responses: 'late', delayMs: 600_000 });
    const controller = new AbortController();
    const pending = llm.generate({ ...request(), signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toSatisfy(AbortError.isInstance);

    const streamController = new AbortController();
    const stream = collect(llm.stream({ ...request(), signal: streamController.signal }));
    streamController.abort();
    await expect(stream).rejects.toSatisfy(AbortError.isInstance);
  });

  it('rejects an already aborted request and stops a stream aborted between chunks', async () => {
    const llm = createMockLLM({ responses: 'one two three', chunkDelayMs: 600_000 });
    await expect(llm.generate({ ...request(), signal: AbortSignal.abort() })).rejects.toSatisfy(
      AbortError.isInstance,
    );
    const controller = new AbortController();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const part of llm.stream({ ...request(), signal: controller.signal })) {
          if (part.type === 'text-delta') seen.push(part.text);
          controller.abort();
        }
      })(),
    ).rejects.toSatisfy(AbortError.isInstance);
    expect(seen).toEqual(['one']);
  });

  it('records every call with a copy of its request, without the signal by default', async () => {
    const llm = createMockLLM({ responses: ['a', new Error('boom')] });
    const messages = [{ role: 'user' as const, content: 'first' }];
    const signal = new AbortController().signal;
    await llm.generate({ messages, system: 'Be brief.', signal });
    messages.push({ role: 'user', content: 'mutated later' });
    await collect(llm.stream(request('second'))).catch(() => undefined);
    await llm.generate({ ...request('third'), signal: AbortSignal.abort() }).catch(() => undefined);

    expect(llm.calls).toEqual([
      {
        method: 'generate',
        callIndex: 0,
        request: { messages: [{ role: 'user', content: 'first' }], system: 'Be brief.' },
      },
      { method: 'stream', callIndex: 1, request: request('second') },
      { method: 'generate', callIndex: 2, request: request('third') },
    ]);
    expect('signal' in llm.calls[0]!.request).toBe(false);

    const keeping = createMockLLM({ recordSignal: true });
    await keeping.generate({ ...request(), signal });
    expect(keeping.calls[0]?.request.signal).toBe(signal);
  });

  it('forgets calls and restarts the list on reset', async () => {
    const llm = createMockLLM({ responses: ['first', 'second'] });
    await llm.generate(request());
    await llm.generate(request());
    const calls = llm.calls;
    llm.reset();
    expect(calls).toHaveLength(0);
    expect((await llm.generate(request())).text).toBe('first');
    expect(llm.calls).toHaveLength(1);
  });
});
