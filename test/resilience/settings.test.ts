import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { safeParse } from '../../src/util/schema.js';
import {
  rateLimitSettingsSchema,
  resilienceSettingsSchema,
  resolveResilienceSettings,
} from '../../src/resilience/settings.js';

describe('resilience settings', () => {
  it('defaults to 60 s / 20 s / 30 s timeouts, 2 retries, 500 ms–20 s backoff, 5 failures in 120 s, 30 s cooldown', () => {
    expect(resolveResilienceSettings(undefined)).toEqual({
      timeoutMs: 60_000,
      deadlineMs: 120_000,
      firstByteTimeoutMs: 20_000,
      idleTimeoutMs: 30_000,
      retries: 2,
      minDelayMs: 500,
      maxDelayMs: 20_000,
      breaker: { enabled: true, failureThreshold: 5, windowMs: 120_000, cooldownMs: 30_000 },
      breakerScope: 'provider',
    });
  });

  it('fills defaults inside a partial breaker and accepts its own output', () => {
    const settings = resolveResilienceSettings({ breaker: { cooldownMs: 5_000 } });
    expect(settings.breaker).toEqual({
      enabled: true,
      failureThreshold: 5,
      windowMs: 120_000,
      cooldownMs: 5_000,
    });
    expect(resolveResilienceSettings(settings)).toEqual(settings);
  });

  it('rejects bad values and unknown keys with ConfigError naming the field', () => {
    const attempt = (input: unknown) => {
      try {
        resolveResilienceSettings(input as never);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const negative = attempt({ retries: -1 }) as ConfigError;
    expect(ConfigError.isInstance(negative)).toBe(true);
    expect(negative.issues.map((issue) => issue.path)).toEqual(['resilience.retries']);
    const unknown = attempt({ retry: 3 }) as ConfigError;
    expect(unknown.issues.map((issue) => issue.path)).toEqual(['resilience.retry']);
    const inverted = attempt({ minDelayMs: 5_000, maxDelayMs: 100 }) as ConfigError;
    expect(inverted.issues.map((issue) => issue.path)).toEqual(['resilience.maxDelayMs']);
    expect(safeParse(resilienceSettingsSchema, { breakerScope: 'user' }).success).toBe(false);
  });
});

describe('rate limit settings', () => {
  it('are opt-in, 60 per 300 s, flood at a mean gap under 2 s over 5 messages', () => {
    const parsed = safeParse(rateLimitSettingsSchema(), {});
    expect(parsed).toEqual({
      success: true,
      data: {
        enabled: false,
        limit: 60,
        windowMs: 300_000,
        flood: { enabled: true, messages: 5, minGapMs: 2_000 },
      },
    });
  });
});
