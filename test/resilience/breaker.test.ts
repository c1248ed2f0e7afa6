import { describe, expect, it } from 'vitest';
import {
  AbortError,
  ProviderError,
  TimeoutError,
  ValidationError,
} from '../../src/errors/index.js';
import {
  countsAsFailure,
  createCircuitBreaker,
  type BreakerStateChange,
} from '../../src/resilience/breaker.js';
import { CircuitOpenError } from '../../src/resilience/errors.js';

const down = () => new ProviderError('HTTP 503', { provider: 'p', status: 503 });

function setup(settings: Parameters<typeof createCircuitBreaker>[0] = {}) {
  let time = 1_000_000;
  const changes: BreakerStateChange[] = [];
  const breaker = createCircuitBreaker({
    provider: 'p',
    now: () => time,
    onStateChange: (change) => changes.push(change),
    ...settings,
  });
  const fail = (key = 'p', error: unknown = down()) => breaker.acquire(key).failure(error);
  const succeed = (key = 'p') => breaker.acquire(key).success();
  return {
    breaker,
    changes,
    fail,
    succeed,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('circuit breaker', () => {
  it('opens after 5 consecutive failures within 120 s and reports it', () => {
    const { breaker, changes, fail, advance } = setup();
    for (let index = 0; index < 4; index++) {
      fail();
      advance(20_000);
    }
    expect(breaker.state('p')).toBe('closed');
    expect(breaker.snapshot('p').failures).toBe(4);
    fail();
    expect(breaker.state('p')).toBe('open');
    expect(changes).toEqual([
      { key: 'p', state: 'open', previous: 'closed', failures: 5, retryAfterMs: 30_000 },
    ]);
  });

  it('does not open on 5 failures spread over more than 120 s', () => {
    const { breaker, fail, advance } = setup();
    for (let index = 0; index < 5; index++) {
      if (index > 0) advance(31_000); // the 1st failure is 124 s old at the 5th
      fail();
    }
    expect(breaker.state('p')).toBe('closed');
    expect(breaker.snapshot('p').failures).toBe(4);
  });

  it('restarts the count after a success (consecutive failures)', () => {
    const { breaker, fail, succeed } = setup();
    for (let index = 0; index < 4; index++) fail();
    succeed();
    for (let index = 0; index < 4; index++) fail();
    expect(breaker.state('p')).toBe('closed');
  });

  it('refuses calls while open with CircuitOpenError giving the time until half-open', () => {
    const { breaker, fail, advance } = setup();
    for (let index = 0; index < 5; index++) fail();
    advance(10_000);
    let error: unknown;
    try {
      breaker.acquire('p');
    } catch (caught) {
      error = caught;
    }
    expect(CircuitOpenError.isInstance(error)).toBe(true);
    const open = error as CircuitOpenError;
    expect(open.code).toBe('provider_error');
    expect(open.retryable).toBe(false);
    expect(open.retryAfterMs).toBe(20_000);
    expect(open.key).toBe('p');
    expect(open.provider).toBe('p');
    expect(ProviderError.isInstance(open)).toBe(true);
  });

  it('half-opens after the cooldown: one trial, whose success closes the breaker', () => {
    const { breaker, changes, fail, advance } = setup();
    for (let index = 0; index < 5; index++) fail();
    advance(30_000);
    expect(breaker.state('p')).toBe('half-open');
    const trial = breaker.acquire('p');
    expect(trial.trial).toBe(true);
    expect(() => breaker.acquire('p')).toThrow(CircuitOpenError); // one trial at a time
    trial.success();
    expect(breaker.state('p')).toBe('closed');
    expect(breaker.snapshot('p').failures).toBe(0);
    expect(changes.map((change) => change.state)).toEqual(['open', 'half-open', 'closed']);
    expect(breaker.acquire('p').trial).toBe(false);
  });

  it('re-opens when the half-open trial fails, for another full cooldown', () => {
    const { breaker, changes, fail, advance } = setup();
    for (let index = 0; index < 5; index++) fail();
    advance(30_000);
    breaker.acquire('p').failure(down());
    expect(breaker.state('p')).toBe('open');
    expect(breaker.snapshot('p').retryAfterMs).toBe(30_000);
    expect(changes.map((change) => change.state)).toEqual(['open', 'half-open', 'open']);
  });

  it('lets another trial through when the trial ends without an outcome', () => {
    const { breaker, fail, advance } = setup();
    for (let index = 0; index < 5; index++) fail();
    advance(30_000);
    breaker.acquire('p').release();
    expect(breaker.state('p')).toBe('half-open');
    expect(breaker.acquire('p').trial).toBe(true);
  });

  it('keeps keys apart (per conversation)', () => {
    const { breaker, fail } = setup();
    for (let index = 0; index < 5; index++) fail('p:conversation-1');
    expect(breaker.state('p:conversation-1')).toBe('open');
    expect(breaker.state('p:conversation-2')).toBe('closed');
    expect(() => breaker.acquire('p:conversation-2')).not.toThrow();
  });

  it('does not count aborts, client errors or validation errors as failures', () => {
    const { breaker, fail } = setup();
    const harmless = [
      new AbortError(),
      new ProviderError('bad request', { provider: 'p', status: 400 }),
      new ProviderError('unauthorized', { provider: 'p', status: 401 }),
      new ProviderError('not found', { provider: 'p', status: 404 }),
      new ValidationError('bad'),
      new DOMException('aborted', 'AbortError'),
    ];
    for (const error of harmless) fail('p', error);
    expect(breaker.state('p')).toBe('closed');
    expect(breaker.size).toBe(0);
    expect(countsAsFailure(new TimeoutError('slow', 1))).toBe(true);
    expect(countsAsFailure(new ProviderError('limited', { provider: 'p', status: 429 }))).toBe(
      true,
    );
    expect(countsAsFailure(new TypeError('fetch failed'))).toBe(true);
  });

  it('run() reports the outcome of the call', async () => {
    const { breaker } = setup({ failureThreshold: 2 });
    await expect(breaker.run('p', async () => 'ok')).resolves.toBe('ok');
    await expect(breaker.run('p', () => Promise.reject(down()))).rejects.toThrow('HTTP 503');
    await expect(breaker.run('p', () => Promise.reject(down()))).rejects.toThrow('HTTP 503');
    await expect(breaker.run('p', async () => 'never')).rejects.toSatisfy((error) =>
      CircuitOpenError.isInstance(error),
    );
  });

  it('tracks only keys with failures, at most maxKeys of them', () => {
    const { breaker, fail, succeed } = setup({ maxKeys: 3 });
    for (let index = 0; index < 10; index++) succeed(`k${index}`);
    expect(breaker.size).toBe(0);
    for (let index = 0; index < 10; index++) fail(`k${index}`);
    expect(breaker.size).toBe(3);
  });

  it('reset() closes a key and reports it', () => {
    const { breaker, changes, fail } = setup();
    for (let index = 0; index < 5; index++) fail();
    breaker.reset();
    expect(breaker.state('p')).toBe('closed');
    expect(changes.at(-1)?.state).toBe('closed');
  });

  it('a throwing state listener does not break the call', () => {
    const { breaker, fail } = setup({
      onStateChange: () => {
        throw new Error('listener bug');
      },
    });
    for (let index = 0; index < 5; index++) fail();
    expect(breaker.state('p')).toBe('open');
  });
});
