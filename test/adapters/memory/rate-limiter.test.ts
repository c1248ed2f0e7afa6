import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors/index.js';
import { createMemoryRateLimiter } from '../../../src/adapters/memory/rate-limiter.js';
import { testRateLimiter } from '../../../src/testing/test-rate-limiter.js';

testRateLimiter({
  title: 'memory rate limiter',
  create: (limits) => createMemoryRateLimiter(limits),
});

const T = 1_700_000_000_000;

describe('createMemoryRateLimiter', () => {
  it('defaults to 60 requests per 300 s', async () => {
    const limiter = createMemoryRateLimiter({ flood: false });
    for (let index = 0; index < 60; index++) {
      expect((await limiter.hit('k', T + index * 1_000)).allowed).toBe(true);
    }
    const refused = await limiter.hit('k', T + 60_000);
    expect(refused).toEqual({
      allowed: false,
      reason: 'window',
      remaining: 0,
      retryAfterMs: 240_000,
    });
  });

  it('detects a flood by default: 5 messages less than 2 s apart on average', async () => {
    const limiter = createMemoryRateLimiter();
    for (let index = 0; index < 4; index++) await limiter.hit('k', T + index * 1_000);
    const refused = await limiter.hit('k', T + 4_000); // mean gap 1 s
    expect(refused).toMatchObject({ allowed: false, reason: 'flood', retryAfterMs: 4_000 });
    expect(refused.remaining).toBe(56);
    expect((await limiter.hit('k', T + 8_000)).allowed).toBe(true); // mean gap 2 s
  });

  it('honours custom flood settings and can turn flood detection off', async () => {
    const strict = createMemoryRateLimiter({ flood: { messages: 3, minGapMs: 10_000 } });
    await strict.hit('k', T);
    await strict.hit('k', T + 15_000);
    expect((await strict.hit('k', T + 19_000)).reason).toBe('flood'); // mean gap 9.5 s
    const off = createMemoryRateLimiter({ flood: false });
    for (let index = 0; index < 10; index++) {
      expect((await off.hit('k', T + index)).allowed).toBe(true);
    }
    const disabled = createMemoryRateLimiter({ flood: { enabled: false } });
    for (let index = 0; index < 10; index++) {
      expect((await disabled.hit('k', T + index)).allowed).toBe(true);
    }
  });

  it('reports the longer wait when both the window and a flood apply', async () => {
    const limiter = createMemoryRateLimiter({ limit: 5, windowMs: 60_000 });
    for (let index = 0; index < 5; index++) await limiter.hit('k', T + index * 2_000);
    const refused = await limiter.hit('k', T + 8_500);
    expect(refused).toMatchObject({ allowed: false, reason: 'window', retryAfterMs: 51_500 });
  });

  it('forgets keys whose requests have all left the window', async () => {
    const limiter = createMemoryRateLimiter({ windowMs: 10_000, flood: false });
    for (let index = 0; index < 100; index++) await limiter.hit(`user-${index}`, T + index);
    expect(limiter.size).toBe(100);
    await limiter.hit('late', T + 20_000);
    expect(limiter.size).toBe(1);
  });

  it('tracks at most maxKeys keys, forgetting the least recently allowed first', async () => {
    const limiter = createMemoryRateLimiter({ limit: 1, maxKeys: 3, flood: false });
    for (const key of ['a', 'b', 'c', 'd']) await limiter.hit(key, T);
    expect(limiter.size).toBe(3);
    expect((await limiter.hit('a', T + 1)).allowed).toBe(true); // 'a' was forgotten
    expect((await limiter.hit('d', T + 1)).allowed).toBe(false);
  });

  it('keeps counts right when the caller’s clock steps back', async () => {
    const limiter = createMemoryRateLimiter({ limit: 2, windowMs: 10_000, flood: false });
    await limiter.hit('k', T + 5_000);
    await limiter.hit('k', T + 1_000);
    const refused = await limiter.hit('k', T + 6_000);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 5_000 }); // T+1000 leaves at T+11000
  });

  it('reset() forgets a key or all keys', async () => {
    const limiter = createMemoryRateLimiter({ limit: 1, flood: false });
    await limiter.hit('a', T);
    await limiter.hit('b', T);
    limiter.reset('a');
    expect((await limiter.hit('a', T)).allowed).toBe(true);
    limiter.reset();
    expect(limiter.size).toBe(0);
  });

  it('rejects bad settings with a ValidationError naming the field', () => {
    const fieldOf = (settings: Parameters<typeof createMemoryRateLimiter>[0]) => {
      try {
        createMemoryRateLimiter(settings);
      } catch (error) {
        expect(ValidationError.isInstance(error)).toBe(true);
        return (error as ValidationError).issues[0]?.path;
      }
      return undefined;
    };
    expect(fieldOf({ limit: 0 })).toBe('limit');
    expect(fieldOf({ windowMs: 1.5 })).toBe('windowMs');
    expect(fieldOf({ flood: { minGapMs: -1 } })).toBe('flood.minGapMs');
    expect(fieldOf({ flood: { messages: 1 } })).toBe('flood.messages');
    expect(fieldOf({ maxKeys: 0 })).toBe('maxKeys');
  });
});
