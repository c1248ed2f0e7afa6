/**
 * Provider streams are closed on every exit path (reliability issue 14, item 8): when the turn
 * is aborted, an idle timeout fires, the consumer leaves early or the provider throws, the
 * provider's iterator gets `return()` exactly once, so a generator's `finally` (which releases
 * a pooled connection) runs once per turn. The providers here ignore the abort signal, as a
 * careless custom provider does: only `return()` can close them. And `toNodeListener` stops
 * waiting for `drain` when a slow SSE reader disconnects, and cancels the response body.
 */
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/engine.js';
import { AbortError, ProviderError, TimeoutError } from '../../src/errors/index.js';
import type { LLMProvider, LLMRequest, LLMStreamPart } from '../../src/ports/llm-provider.js';
import { toNodeListener } from '../../src/http/node.js';
import { createResilientLLM } from '../../src/resilience/resilient-llm.js';
import { handbook } from '../fixtures/handbook.js';

const QUESTION = 'How long does standard shipping take?';

/** Lets pending promise jobs and I/O callbacks run (no wall-clock wait). */
async function settle(rounds = 20): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * A provider on a "pooled connection": each stream sends one delta, then waits for the next
 * chunk until the test opens its gate (ignoring the signal), and counts its `finally`.
 */
function pooledProvider(options: { failAfterFirst?: boolean } = {}) {
  const counts = { opened: 0, closed: 0 };
  const gates: (() => void)[] = [];
  const provider: LLMProvider = {
    name: 'pooled',
    specificationVersion: 'v1',
    metadata: { provider: 'pooled', model: 'pooled-1', contextWindow: 8_192 },
    generate: () => Promise.resolve({ text: 'unused', finishReason: 'stop' }),
    async *stream(): AsyncGenerator<LLMStreamPart> {
      counts.opened++;
      try {
        yield { type: 'text-delta', text: 'Standard shipping takes ' };
        if (options.failAfterFirst) {
          throw new ProviderError('connection reset', { provider: 'pooled', retryable: false });
        }
        await new Promise<void>((resolve) => gates.push(resolve));
        yield { type: 'text-delta', text: '3 to 5 business days [source: S1].' };
        yield { type: 'finish', finishReason: 'stop' };
      } finally {
        counts.closed++;
      }
    },
  };
  /** Lets every waiting stream receive its next chunk. */
  const openGates = (): void => {
    for (const open of gates.splice(0)) open();
  };
  return { provider, counts, openGates };
}

async function engineWith(provider: LLMProvider, idleTimeoutMs?: number) {
  const engine = createChatEngine({
    llm: provider,
    rateLimit: { enabled: false },
    smallTalk: false,
    retrieval: { minSimilarity: 0 },
    rewrite: { llm: 'never' },
    resilience: { retries: 0, ...(idleTimeoutMs ? { idleTimeoutMs } : {}) },
  });
  await engine.ingest(handbook);
  return engine;
}

const request: LLMRequest = { messages: [{ role: 'user', content: QUESTION }] };

describe('provider streams are closed on every exit path', () => {
  it('closes the provider stream of each of 20 turns aborted mid-stream', async () => {
    const { provider, counts, openGates } = pooledProvider();
    const engine = await engineWith(provider);
    const session = await engine.createSession({ userId: 'u1' });
    const TURNS = 20;
    for (let turn = 0; turn < TURNS; turn++) {
      const controller = new AbortController();
      const stream = engine.stream({
        sessionId: session.id,
        userId: 'u1',
        message: `${QUESTION} (${turn})`,
        signal: controller.signal,
      });
      const types: string[] = [];
      for await (const part of stream) {
        types.push(part.type);
        if (part.type === 'text-delta') controller.abort();
      }
      expect(types).toContain('text-delta');
      await stream.response.catch(() => undefined);
    }
    await engine.flush();
    openGates();
    await settle();
    expect(counts.opened).toBe(TURNS);
    expect(counts.closed).toBe(TURNS);
  });

  it('closes the provider stream of each of 5 turns that hit the idle timeout', async () => {
    const { provider, counts, openGates } = pooledProvider();
    const engine = await engineWith(provider, 25);
    const session = await engine.createSession({ userId: 'u1' });
    const TURNS = 5;
    for (let turn = 0; turn < TURNS; turn++) {
      const stream = engine.stream({
        sessionId: session.id,
        userId: 'u1',
        message: `${QUESTION} (${turn})`,
      });
      const errors: string[] = [];
      for await (const part of stream) if (part.type === 'error') errors.push(part.error.code);
      expect(errors).toEqual(['timeout']);
    }
    await engine.flush();
    openGates();
    await settle();
    expect(counts.opened).toBe(TURNS);
    expect(counts.closed).toBe(TURNS);
  });

  it('closes the provider stream when the consumer leaves early, and when the provider throws', async () => {
    const early = pooledProvider();
    const llm = createResilientLLM(early.provider, { retries: 0 });
    for await (const part of llm.stream(request)) {
      expect(part.type).toBe('text-delta');
      break;
    }
    const failing = pooledProvider({ failAfterFirst: true });
    const parts: LLMStreamPart[] = [];
    const error = await (async () => {
      for await (const part of createResilientLLM(failing.provider, { retries: 0 }).stream(request))
        parts.push(part);
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(parts).toHaveLength(1);
    early.openGates();
    await settle();
    expect(early.counts).toEqual({ opened: 1, closed: 1 });
    expect(failing.counts).toEqual({ opened: 1, closed: 1 });
  });

  it('calls return() of a hand-written iterator exactly once on abort and timeout, never after it ended', async () => {
    const returns = { aborted: 0, timedOut: 0, ended: 0, threw: 0 };
    /** An iterator that sends one part, then hangs (`hang`), ends or throws. */
    const handWritten = (
      slot: keyof typeof returns,
      then: 'hang' | 'end' | 'throw',
    ): LLMProvider => ({
      name: 'hand-written',
      specificationVersion: 'v1',
      metadata: { provider: 'hand-written', model: 'h', contextWindow: 8_192 },
      generate: () => Promise.resolve({ text: 'unused', finishReason: 'stop' }),
      stream: () => ({
        [Symbol.asyncIterator]() {
          let sent = false;
          return {
            next(): Promise<IteratorResult<LLMStreamPart>> {
              if (!sent) {
                sent = true;
                return Promise.resolve({ done: false, value: { type: 'text-delta', text: 'a' } });
              }
              if (then === 'end') return Promise.resolve({ done: true, value: undefined });
              if (then === 'throw') {
                return Promise.reject(
                  new ProviderError('boom', { provider: 'h', retryable: false }),
                );
              }
              return new Promise<never>(() => {});
            },
            return(): Promise<IteratorResult<LLMStreamPart>> {
              returns[slot]++;
              return Promise.resolve({ done: true, value: undefined });
            },
          };
        },
      }),
    });
    const drain = (llm: LLMProvider, signal?: AbortSignal, onPart?: () => void) =>
      (async () => {
        for await (const _part of llm.stream({ ...request, signal })) onPart?.();
      })().then(
        () => undefined,
        (caught: unknown) => caught,
      );

    const controller = new AbortController();
    const aborted = await drain(
      createResilientLLM(handWritten('aborted', 'hang'), { retries: 0 }),
      controller.signal,
      () => controller.abort(),
    );
    expect(AbortError.isInstance(aborted)).toBe(true);
    const timedOut = await drain(
      createResilientLLM(handWritten('timedOut', 'hang'), { retries: 0, idleTimeoutMs: 10 }),
    );
    expect(TimeoutError.isInstance(timedOut)).toBe(true);
    expect(await drain(createResilientLLM(handWritten('ended', 'end'), { retries: 0 }))).toBe(
      undefined,
    );
    const threw = await drain(createResilientLLM(handWritten('threw', 'throw'), { retries: 0 }));
    expect(ProviderError.isInstance(threw)).toBe(true);
    await settle();
    expect(returns).toEqual({ aborted: 1, timedOut: 1, ended: 0, threw: 0 });
  });
});

describe('toNodeListener and a slow reader that disconnects', () => {
  it('stops waiting for drain and cancels the body when the client goes away', async () => {
    let cancelled = 0;
    let pulls = 0;
    let aborted = false;
    const chunk = new TextEncoder().encode(`data: ${'x'.repeat(64 * 1024)}\n\n`);
    const listener = toNodeListener((request) => {
      request.signal.addEventListener('abort', () => {
        aborted = true;
      });
      // An endless SSE body, produced only as fast as the listener reads it.
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulls++;
            controller.enqueue(chunk);
          },
          cancel() {
            cancelled++;
          },
        },
        { highWaterMark: 0 },
      );
      return Promise.resolve(
        new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
      );
    });
    let response: ServerResponse | undefined;
    const server = createServer((incoming, outgoing) => {
      response = outgoing;
      listener(incoming, outgoing);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      socket.pause(); // never reads: the server's writes back up
      socket.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      // Wait (in I/O turns, not wall-clock time) until the listener is blocked on `drain`.
      for (let turn = 0; turn < 100_000 && !response?.writableNeedDrain; turn++) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      expect(response?.writableNeedDrain).toBe(true);
      const pullsWhenBlocked = pulls;
      await settle();
      expect(pulls).toBe(pullsWhenBlocked); // really waiting for drain, not reading on

      const closed = new Promise<void>((resolve) => response!.once('close', resolve));
      socket.destroy();
      await closed;
      await settle();
      expect(aborted).toBe(true);
      expect(cancelled).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
