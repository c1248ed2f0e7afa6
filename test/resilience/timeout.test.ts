import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, TimeoutError } from '../../src/errors/index.js';
import { withStreamTimeouts, withTimeout } from '../../src/resilience/timeout.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A call that resolves after `ms` unless its signal fires; records the signal. */
function slowCall(ms: number, value = 'done') {
  const signals: AbortSignal[] = [];
  const call = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      signals.push(signal);
      const timer = setTimeout(() => resolve(value), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new DOMException('aborted', 'AbortError'));
      });
    });
  return { call, signals };
}

/** Settles a promise into a value to assert on, without unhandled rejections. */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('withTimeout', () => {
  it('settles like the call when it is fast enough', async () => {
    const { call } = slowCall(100);
    const result = settle(withTimeout(call, { timeoutMs: 1_000 }));
    await vi.advanceTimersByTimeAsync(100);
    expect(await result).toEqual({ value: 'done' });
  });

  it('rejects with a retryable TimeoutError and aborts the call’s signal when time runs out', async () => {
    const { call, signals } = slowCall(5_000);
    const result = settle(withTimeout(call, { timeoutMs: 1_000, what: 'mock generate' }));
    await vi.advanceTimersByTimeAsync(1_000);
    const { error } = (await result) as { error: TimeoutError };
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.timeoutMs).toBe(1_000);
    expect(error.message).toContain('mock generate');
    expect(signals[0]?.aborted).toBe(true);
  });

  it('times out even when the call ignores its signal', async () => {
    const call = () => new Promise<string>(() => {});
    const result = settle(withTimeout(call, { timeoutMs: 500 }));
    await vi.advanceTimersByTimeAsync(500);
    expect(TimeoutError.isInstance(((await result) as { error: unknown }).error)).toBe(true);
  });

  it('rejects with AbortError (not TimeoutError) when the caller aborts', async () => {
    const controller = new AbortController();
    const { call, signals } = slowCall(5_000);
    const result = settle(withTimeout(call, { timeoutMs: 1_000, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(200);
    controller.abort();
    const { error } = (await result) as { error: AbortError };
    expect(AbortError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(false);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('does not call at all when the caller already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = vi.fn(async () => 'x');
    const { error } = (await settle(
      withTimeout(call, { timeoutMs: 1_000, signal: controller.signal }),
    )) as { error: unknown };
    expect(AbortError.isInstance(error)).toBe(true);
    expect(call).not.toHaveBeenCalled();
  });

  it('aborts a settled call’s signal with one shared AbortError, not a new one per call', async () => {
    const { call, signals } = slowCall(10);
    for (let i = 0; i < 3; i++) {
      const result = settle(withTimeout(call, { timeoutMs: 1_000 }));
      await vi.advanceTimersByTimeAsync(10);
      expect(await result).toEqual({ value: 'done' });
    }
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true, true]);
    expect(AbortError.isInstance(signals[0]!.reason)).toBe(true);
    expect(signals[1]!.reason).toBe(signals[0]!.reason);
    expect(signals[2]!.reason).toBe(signals[0]!.reason);
  });

  it('still aborts with the call’s own TimeoutError or AbortError when the deadline fires', async () => {
    const timed = slowCall(5_000);
    const timedOut = settle(withTimeout(timed.call, { timeoutMs: 1_000 }));
    await vi.advanceTimersByTimeAsync(1_000);
    const { error: timeout } = (await timedOut) as { error: TimeoutError };
    expect(TimeoutError.isInstance(timed.signals[0]!.reason)).toBe(true);
    expect(timed.signals[0]!.reason).toBe(timeout);

    const controller = new AbortController();
    const cancelled = slowCall(5_000);
    const aborted = settle(
      withTimeout(cancelled.call, { timeoutMs: 1_000, signal: controller.signal }),
    );
    controller.abort('user left');
    const { error } = (await aborted) as { error: AbortError };
    const reason = cancelled.signals[0]!.reason as AbortError;
    expect(AbortError.isInstance(reason)).toBe(true);
    expect(reason.cause).toBe('user left');
    expect(error.cause).toBe('user left');
  });

  it('treats 0 as no timeout', async () => {
    const { call } = slowCall(100_000);
    const result = settle(withTimeout(call, { timeoutMs: 0 }));
    await vi.advanceTimersByTimeAsync(100_000);
    expect(await result).toEqual({ value: 'done' });
  });
});

/** A stream yielding `items` after the given delays (ms before each). */
function delayedStream(steps: readonly (readonly [number, string])[]) {
  const signals: AbortSignal[] = [];
  const open = (signal: AbortSignal) => {
    signals.push(signal);
    return (async function* () {
      for (const [ms, item] of steps) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new DOMException('aborted', 'AbortError'));
          });
        });
        yield item;
      }
    })();
  };
  return { open, signals };
}

async function drain<T>(iterable: AsyncIterable<T>, seen: T[]): Promise<void> {
  for await (const item of iterable) seen.push(item);
}

describe('withStreamTimeouts', () => {
  const limits = { firstByteTimeoutMs: 1_000, idleTimeoutMs: 500 };

  it('passes a stream through when parts arrive in time', async () => {
    const { open } = delayedStream([
      [900, 'a'],
      [400, 'b'],
      [400, 'c'],
    ]);
    const seen: string[] = [];
    const result = settle(drain(withStreamTimeouts(open, limits), seen));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await result).toEqual({ value: undefined });
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('throws a first-byte TimeoutError when nothing arrives in time', async () => {
    const { open, signals } = delayedStream([[1_500, 'a']]);
    const seen: string[] = [];
    const result = settle(
      drain(withStreamTimeouts(open, { ...limits, what: 'mock stream' }), seen),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    const { error } = (await result) as { error: TimeoutError };
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain('first-byte');
    expect(error.timeoutMs).toBe(1_000);
    expect(seen).toEqual([]);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('throws an idle TimeoutError when the stream stalls between parts', async () => {
    const { open } = delayedStream([
      [100, 'a'],
      [100, 'b'],
      [800, 'c'],
    ]);
    const seen: string[] = [];
    const result = settle(drain(withStreamTimeouts(open, limits), seen));
    await vi.advanceTimersByTimeAsync(1_000);
    const { error } = (await result) as { error: TimeoutError };
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain('idle');
    expect(seen).toEqual(['a', 'b']);
  });

  it('does not count the consumer’s time between parts as idle', async () => {
    const { open } = delayedStream([
      [100, 'a'],
      [100, 'b'],
    ]);
    const seen: string[] = [];
    const slowConsumer = (async () => {
      for await (const item of withStreamTimeouts(open, limits)) {
        seen.push(item);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    })();
    const result = settle(slowConsumer);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await result).toEqual({ value: undefined });
    expect(seen).toEqual(['a', 'b']);
  });

  it('throws AbortError when the caller aborts mid-stream', async () => {
    const controller = new AbortController();
    const { open, signals } = delayedStream([
      [100, 'a'],
      [300, 'b'],
    ]);
    const seen: string[] = [];
    const result = settle(
      drain(withStreamTimeouts(open, { ...limits, signal: controller.signal }), seen),
    );
    await vi.advanceTimersByTimeAsync(200);
    controller.abort();
    const { error } = (await result) as { error: unknown };
    expect(AbortError.isInstance(error)).toBe(true);
    expect(seen).toEqual(['a']);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('aborts the provider’s signal when the consumer leaves early', async () => {
    const { open, signals } = delayedStream([
      [10, 'a'],
      [10, 'b'],
    ]);
    const run = (async () => {
      for await (const item of withStreamTimeouts(open, limits)) {
        if (item === 'a') break;
      }
    })();
    await vi.advanceTimersByTimeAsync(50);
    await run;
    expect(signals[0]?.aborted).toBe(true);
  });
});
