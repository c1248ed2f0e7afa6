import { describe, expect, it } from './runner.js';
import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter.js';
import { abortedSignal, expectErrorCode, titled, uniqueName, type SkipReasons } from './shared.js';

/** Parts of the `RateLimiter` contract an adapter may lack (see {@link SkipReasons}). */
export type RateLimiterCapability = 'flood' | 'validation' | 'abort';

/** The limits the suite asks `create` to configure (`config.rateLimit` has this shape). */
export interface RateLimiterLimits {
  /** Most requests per key within `windowMs`. */
  readonly limit: number;
  /** Sliding window, ms. */
  readonly windowMs: number;
  /** Flood detection: mean gap of the last `messages` requests below `minGapMs`. */
  readonly flood: {
    readonly enabled: boolean;
    readonly messages: number;
    readonly minGapMs: number;
  };
}

/** Options of {@link testRateLimiter}. */
export interface RateLimiterSuiteOptions {
  /** Makes a limiter configured with `limits`; called in every test. */
  readonly create: (limits: RateLimiterLimits) => RateLimiter | Promise<RateLimiter>;
  /** Releases a limiter `create` made; called after every test. */
  readonly destroy?: ((limiter: RateLimiter) => void | Promise<void>) | undefined;
  /** Title of the `describe` block (default `RateLimiter conformance`). */
  readonly title?: string | undefined;
  /** Prefix of the keys the tests use, one fresh key per test (default `cortexis_test`). */
  readonly keyPrefix?: string | undefined;
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<RateLimiterCapability> | undefined;
}

/**
 * Registers a `describe` block checking a `RateLimiter` against the port contract: a sliding
 * window per key with an exact `retryAfterMs`, refused requests not counted, key isolation,
 * flood detection, rejection of bad input and of aborted calls. Time is the `now` argument
 * of `hit`, so the suite never waits (stores that expire keys by wall time should treat
 * `now` as the request time).
 */
export function testRateLimiter(options: RateLimiterSuiteOptions): void {
  const prefix = options.keyPrefix ?? 'cortexis_test';
  const skip = options.skip ?? {};
  const noFlood = { enabled: false, messages: 5, minGapMs: 2_000 };

  /** Runs `body` with a limiter configured with `limits` and a fresh key; destroys it after. */
  async function withLimiter(
    limits: RateLimiterLimits,
    body: (limiter: RateLimiter, key: string, start: number) => Promise<void>,
  ): Promise<void> {
    const limiter = await options.create(limits);
    try {
      await body(limiter, uniqueName(prefix), Date.now());
    } finally {
      await options.destroy?.(limiter);
    }
  }

  const expectRefused = (decision: RateLimitDecision, reason: 'window' | 'flood'): void => {
    expect(decision.allowed, 'refused').toBe(false);
    expect(decision.reason).toBe(reason);
    expect(decision.retryAfterMs).toBeGreaterThan(0);
  };

  describe(options.title ?? 'RateLimiter conformance', () => {
    it('declares its name and specification version', async () => {
      await withLimiter({ limit: 3, windowMs: 60_000, flood: noFlood }, async (limiter) => {
        expect(typeof limiter.name).toBe('string');
        expect(limiter.name.length).toBeGreaterThan(0);
        expect(limiter.specificationVersion).toBe('v1');
      });
    });

    it('allows `limit` requests in the window, counting `remaining` down, and refuses the next', async () => {
      await withLimiter({ limit: 3, windowMs: 60_000, flood: noFlood }, async (limiter, key, t) => {
        const decisions = [];
        for (let index = 0; index < 3; index++)
          decisions.push(await limiter.hit(key, t + index * 1000));
        expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true]);
        expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0]);
        expect(decisions.every((decision) => decision.retryAfterMs === 0)).toBe(true);
        const refused = await limiter.hit(key, t + 3000);
        expectRefused(refused, 'window');
        expect(refused.remaining).toBe(0);
      });
    });

    it('gives the exact wait: allowed once the oldest counted request leaves the window', async () => {
      await withLimiter({ limit: 3, windowMs: 60_000, flood: noFlood }, async (limiter, key, t) => {
        for (const offset of [0, 10_000, 20_000]) await limiter.hit(key, t + offset);
        const refused = await limiter.hit(key, t + 30_000);
        expectRefused(refused, 'window');
        expect(refused.retryAfterMs).toBe(30_000); // t + 0 leaves at t + 60 000
        expect((await limiter.hit(key, t + 59_999)).allowed).toBe(false);
        expect((await limiter.hit(key, t + 60_000)).allowed).toBe(true);
      });
    });

    it('does not count refused requests: hammering does not push the wait back', async () => {
      await withLimiter({ limit: 2, windowMs: 10_000, flood: noFlood }, async (limiter, key, t) => {
        await limiter.hit(key, t);
        await limiter.hit(key, t + 1_000);
        for (let offset = 2_000; offset < 10_000; offset += 500) {
          const decision = await limiter.hit(key, t + offset);
          expect(decision.allowed).toBe(false);
          expect(decision.retryAfterMs).toBe(10_000 - offset);
        }
        expect((await limiter.hit(key, t + 10_000)).allowed).toBe(true);
      });
    });

    it('slides the window rather than resetting it at fixed intervals', async () => {
      await withLimiter({ limit: 3, windowMs: 60_000, flood: noFlood }, async (limiter, key, t) => {
        for (const offset of [0, 30_000, 59_000]) await limiter.hit(key, t + offset);
        expect((await limiter.hit(key, t + 60_000)).allowed).toBe(true); // t + 0 left
        const refused = await limiter.hit(key, t + 60_500);
        expectRefused(refused, 'window');
        expect(refused.retryAfterMs).toBe(29_500); // t + 30 000 leaves at t + 90 000
      });
    });

    it('keeps keys apart', async () => {
      await withLimiter({ limit: 1, windowMs: 60_000, flood: noFlood }, async (limiter, key, t) => {
        expect((await limiter.hit(`${key}:a`, t)).allowed).toBe(true);
        expect((await limiter.hit(`${key}:a`, t + 1_000)).allowed).toBe(false);
        expect((await limiter.hit(`${key}:b`, t + 1_000)).allowed).toBe(true);
      });
    });

    const flood = { enabled: true, messages: 5, minGapMs: 2_000 };

    it.skipIf(skip.flood)(
      titled('refuses a flood: the mean gap of the last 5 requests below 2 s', skip.flood),
      async () => {
        await withLimiter({ limit: 100, windowMs: 300_000, flood }, async (limiter, key, t) => {
          for (let index = 0; index < 4; index++) {
            expect((await limiter.hit(key, t + index * 500)).allowed).toBe(true);
          }
          const refused = await limiter.hit(key, t + 2_000);
          expectRefused(refused, 'flood');
          expect(refused.remaining).toBeGreaterThan(0);
          // Waiting the given time is enough: mean gap of t+0..t+8000 over 4 gaps is 2 s.
          expect(refused.retryAfterMs).toBe(6_000);
          expect((await limiter.hit(key, t + 2_000 + refused.retryAfterMs)).allowed).toBe(true);
        });
      },
    );

    it.skipIf(skip.flood)(
      titled('allows fewer than 5 quick requests, and 5 with a mean gap of 2 s', skip.flood),
      async () => {
        await withLimiter({ limit: 100, windowMs: 300_000, flood }, async (limiter, key, t) => {
          for (let index = 0; index < 4; index++) {
            expect((await limiter.hit(`${key}:quick`, t + index * 100)).allowed).toBe(true);
          }
          const gaps = [0, 500, 1_000, 7_000, 8_000]; // uneven, mean gap exactly 2 s
          for (const offset of gaps) {
            expect((await limiter.hit(`${key}:even`, t + offset)).allowed).toBe(true);
          }
        });
      },
    );

    it.skipIf(skip.validation)(
      titled('rejects an empty key and a non-finite time with validation_error', skip.validation),
      async () => {
        await withLimiter({ limit: 3, windowMs: 60_000, flood: noFlood }, async (limiter, key) => {
          await expectErrorCode(
            () => limiter.hit('', Date.now()),
            'validation_error',
            'an empty key',
          );
          await expectErrorCode(() => limiter.hit(key, Number.NaN), 'validation_error', 'NaN time');
        });
      },
    );

    it.skipIf(skip.abort)(
      titled('rejects an aborted call with aborted, without counting it', skip.abort),
      async () => {
        await withLimiter(
          { limit: 1, windowMs: 60_000, flood: noFlood },
          async (limiter, key, t) => {
            await expectErrorCode(
              () => limiter.hit(key, t, { signal: abortedSignal() }),
              'aborted',
              'an aborted hit',
            );
            expect((await limiter.hit(key, t)).allowed).toBe(true);
          },
        );
      },
    );
  });
}
