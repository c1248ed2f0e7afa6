import { describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ProviderError,
  TimeoutError,
  ValidationError,
} from '../../src/errors/index.js';
import { CircuitOpenError, RetryError } from '../../src/resilience/errors.js';
import {
  backoffDelay,
  isRetryableError,
  nextRetryDelay,
  withRetry,
  type RetryInfo,
} from '../../src/resilience/retry.js';

const providerError = (status: number, retryAfterMs?: number) =>
  new ProviderError(`HTTP ${status}`, { provider: 'test', status, retryAfterMs });

/** A call failing with `errors` in order, then answering `ok`. */
function scripted(errors: unknown[]) {
  const call = vi.fn(async (_attempt: number) => {
    const next = errors.shift();
    if (next !== undefined) throw next;
    return 'ok';
  });
  return call;
}

const policy = { retries: 2, minDelayMs: 500, maxDelayMs: 20_000, random: () => 0.5 };

function run(errors: unknown[], extra: Partial<Parameters<typeof withRetry>[1]> = {}) {
  const call = scripted(errors);
  const sleep = vi.fn(async (_ms: number, _signal?: AbortSignal) => {});
  const retries: RetryInfo[] = [];
  const promise = withRetry(call, {
    ...policy,
    sleep,
    onRetry: (info) => retries.push(info),
    ...extra,
  });
  return { call, sleep, retries, promise };
}

describe('isRetryableError', () => {
  it('retries network failures, timeouts and 408/409/429/5xx', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504]) {
      expect(isRetryableError(providerError(status)), `status ${status}`).toBe(true);
    }
    expect(isRetryableError(new TimeoutError('slow', 10))).toBe(true);
    expect(isRetryableError(new TypeError('fetch failed'))).toBe(true);
    expect(isRetryableError(new TypeError('Failed to fetch'))).toBe(true);
    expect(
      isRetryableError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })),
    ).toBe(true);
    expect(
      isRetryableError(new ProviderError('socket closed', { provider: 'x', retryable: true })),
    ).toBe(true);
  });

  it('never retries 400/401/403/404, validation errors, aborts, an open circuit or bugs', () => {
    for (const status of [400, 401, 403, 404, 422]) {
      expect(isRetryableError(providerError(status)), `status ${status}`).toBe(false);
    }
    // Even when an adapter wrongly marks a client error retryable.
    expect(
      isRetryableError(new ProviderError('bad', { provider: 'x', status: 401, retryable: true })),
    ).toBe(false);
    expect(isRetryableError(new ValidationError('bad input'))).toBe(false);
    expect(isRetryableError(new AbortError())).toBe(false);
    expect(isRetryableError(new DOMException('aborted', 'AbortError'))).toBe(false);
    expect(
      isRetryableError(new CircuitOpenError({ provider: 'x', key: 'x', retryAfterMs: 5 })),
    ).toBe(false);
    expect(
      isRetryableError(new TypeError("Cannot read properties of undefined (reading 'x')")),
    ).toBe(false);
  });
});

describe('backoff', () => {
  it('doubles from minDelayMs per retry with jitter in [half, full], capped at maxDelayMs', () => {
    const at = (random: number, retry: number) =>
      backoffDelay(retry, { ...policy, random: () => random });
    expect([1, 2, 3].map((retry) => at(0, retry))).toEqual([250, 500, 1000]);
    expect([1, 2, 3].map((retry) => at(0.999999, retry))).toEqual([500, 1000, 2000]);
    expect(at(1, 20)).toBe(20_000);
  });

  it('uses the provider’s Retry-After instead, capped at maxDelayMs', () => {
    expect(nextRetryDelay(policy, providerError(429, 7_000), 1)).toBe(7_000);
    expect(nextRetryDelay(policy, providerError(429, 0), 1)).toBe(0);
    expect(nextRetryDelay(policy, providerError(503, 120_000), 1)).toBe(20_000);
    expect(nextRetryDelay(policy, providerError(503), 3)).toBeUndefined(); // retries used up
    expect(nextRetryDelay(policy, providerError(401), 1)).toBeUndefined();
  });
});

describe('withRetry', () => {
  it('retries a retryable error and returns the later success', async () => {
    const { call, sleep, retries, promise } = run([providerError(503), providerError(500)]);
    await expect(promise).resolves.toBe('ok');
    expect(call).toHaveBeenCalledTimes(3);
    expect(call.mock.calls.map(([attempt]) => attempt)).toEqual([1, 2, 3]);
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([375, 750]);
    expect(retries.map((info) => [info.attempt, info.delayMs])).toEqual([
      [1, 375],
      [2, 750],
    ]);
  });

  it('honours Retry-After', async () => {
    const { sleep, promise } = run([providerError(429, 4_000)]);
    await expect(promise).resolves.toBe('ok');
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([4_000]);
  });

  it('does not retry a non-retryable error and rejects with it unwrapped', async () => {
    const unauthorized = providerError(401);
    const { call, sleep, promise } = run([unauthorized]);
    await expect(promise).rejects.toBe(unauthorized);
    expect(call).toHaveBeenCalledTimes(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('keeps every attempt’s error when the retries are used up', async () => {
    const errors = [providerError(500), new TimeoutError('slow', 100), providerError(503, 1)];
    const { call, promise } = run([...errors, providerError(502)]);
    const error = await promise.catch((caught: unknown) => caught);
    expect(call).toHaveBeenCalledTimes(3);
    expect(RetryError.isInstance(error)).toBe(true);
    const retryError = error as RetryError;
    expect(retryError.errors).toEqual(errors);
    expect(retryError.attempts).toBe(3);
    expect(retryError.reason).toBe('max-retries-exceeded');
    expect(retryError.lastError).toBe(errors[2]);
    // Still a CortexisError describing the last failure.
    expect(retryError.code).toBe('provider_error');
    expect(retryError.retryable).toBe(true);
    expect(ProviderError.isInstance(retryError)).toBe(true);
    expect((retryError as unknown as ProviderError).status).toBe(503);
    expect(retryError.message).toContain('3 attempts');
  });

  it('stops at a non-retryable error after retries, keeping the attempts', async () => {
    const errors = [providerError(503), providerError(403)];
    const { call, promise } = run([...errors]);
    const error = (await promise.catch((caught: unknown) => caught)) as RetryError;
    expect(call).toHaveBeenCalledTimes(2);
    expect(error.reason).toBe('error-not-retryable');
    expect(error.errors).toEqual(errors);
    expect(error.retryable).toBe(false);
  });

  it('returns an open circuit as is, even after a retry', async () => {
    const open = new CircuitOpenError({ provider: 'x', key: 'x', retryAfterMs: 1_000 });
    const { promise } = run([providerError(503), open]);
    await expect(promise).rejects.toBe(open);
  });

  it('rejects with AbortError when the signal fires during a wait, without another attempt', async () => {
    const controller = new AbortController();
    const call = scripted([providerError(503), providerError(503)]);
    const promise = withRetry(call, {
      ...policy,
      signal: controller.signal,
      sleep: (ms, signal) =>
        new Promise((_, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort(new Error('user cancelled'));
        }),
    });
    await expect(promise).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('does not retry an abort from the call, and never calls with an aborted signal', async () => {
    const { call, promise } = run([new DOMException('aborted', 'AbortError')]);
    await expect(promise).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(call).toHaveBeenCalledTimes(1);

    const controller = new AbortController();
    controller.abort();
    const never = vi.fn(async () => 'ok');
    await expect(withRetry(never, { ...policy, signal: controller.signal })).rejects.toSatisfy(
      (error) => AbortError.isInstance(error),
    );
    expect(never).not.toHaveBeenCalled();
  });

  it('reports every failed attempt to onError', async () => {
    const seen: number[] = [];
    const { promise } = run([providerError(429), providerError(500)], {
      onError: (_error, attempt) => seen.push(attempt),
    });
    await promise;
    expect(seen).toEqual([1, 2]);
  });
});
