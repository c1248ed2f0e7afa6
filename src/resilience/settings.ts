/**
 * Settings of the resilience layer (timeouts, retries, circuit breaker) and of the engine's
 * rate limit, as zod/mini schemas with every default. The engine mounts them at
 * `config.resilience` and `config.rateLimit`.
 */
import * as z from 'zod/mini';
import { ConfigError } from '../errors/index.js';
import {
  describeIssues,
  intRange,
  lazySchema,
  safeParse,
  schemaOnFirstUse,
} from '../util/schema.js';

/** Default timeouts, retries and breaker thresholds (see docs/resilience.md). */
export const RESILIENCE_DEFAULTS = {
  timeoutMs: 60_000,
  deadlineMs: 120_000,
  firstByteTimeoutMs: 20_000,
  idleTimeoutMs: 30_000,
  retries: 2,
  minDelayMs: 500,
  maxDelayMs: 20_000,
  breaker: { enabled: true, failureThreshold: 5, windowMs: 120_000, cooldownMs: 30_000 },
  breakerScope: 'provider',
} as const;

/** Milliseconds; 0 disables the timeout. */
const timeout = (fallback: number) => z._default(intRange(0, 3_600_000), fallback);

/** Schema of the circuit breaker settings (built on the first call). */
export const breakerSettingsSchema = lazySchema(() =>
  z.strictObject({
    /** Whether the breaker is used at all (default true). */
    enabled: z._default(z.boolean(), RESILIENCE_DEFAULTS.breaker.enabled),
    /** Consecutive failures within `windowMs` that open the breaker (default 5). */
    failureThreshold: z._default(intRange(1, 1000), RESILIENCE_DEFAULTS.breaker.failureThreshold),
    /** Rolling window the failures must fall in, ms (default 120 000). */
    windowMs: z._default(intRange(1, 86_400_000), RESILIENCE_DEFAULTS.breaker.windowMs),
    /** How long an open breaker refuses calls before a half-open trial, ms (default 30 000). */
    cooldownMs: z._default(intRange(1, 86_400_000), RESILIENCE_DEFAULTS.breaker.cooldownMs),
  }),
);

/** Schema of `config.resilience`, built on the first call. Unknown keys are rejected. */
export const lazyResilienceSettingsSchema = lazySchema(() =>
  z
    .strictObject({
      /** Whole `generate` / `embed` call, ms; 0 disables (default 60 000). Streams use the two below. */
      timeoutMs: timeout(RESILIENCE_DEFAULTS.timeoutMs),
      /**
       * Whole `generate` / `embed` call including every retry and wait, ms; 0 disables (default
       * 120 000). Each attempt's timeout is cut to what is left, and a retry that would start
       * after it is not made. A stream is bound by it until its first text.
       */
      deadlineMs: timeout(RESILIENCE_DEFAULTS.deadlineMs),
      /** Stream: most time until the first part arrives, ms; 0 disables (default 20 000). */
      firstByteTimeoutMs: timeout(RESILIENCE_DEFAULTS.firstByteTimeoutMs),
      /** Stream: most time between two parts, ms; 0 disables (default 30 000). */
      idleTimeoutMs: timeout(RESILIENCE_DEFAULTS.idleTimeoutMs),
      /** Retries after the first attempt, for retryable errors only (default 2). */
      retries: z._default(intRange(0, 10), RESILIENCE_DEFAULTS.retries),
      /** Backoff before the first retry, ms; doubles per retry, with jitter (default 500). */
      minDelayMs: z._default(intRange(0, 600_000), RESILIENCE_DEFAULTS.minDelayMs),
      /** Longest wait before a retry, also the cap on a provider's `Retry-After`, ms (default 20 000). */
      maxDelayMs: z._default(intRange(0, 600_000), RESILIENCE_DEFAULTS.maxDelayMs),
      /** Circuit breaker. */
      breaker: z.prefault(breakerSettingsSchema(), {}),
      /** One breaker per provider (default), or one per provider and conversation. */
      breakerScope: z._default(
        z.enum(['provider', 'conversation']),
        RESILIENCE_DEFAULTS.breakerScope,
      ),
    })
    .check(
      z.refine((value) => value.maxDelayMs >= value.minDelayMs, {
        message: 'must be at least minDelayMs',
        path: ['maxDelayMs'],
      }),
    ),
);

/**
 * Schema of `config.resilience`. Unknown keys are rejected. Built the first time it is used,
 * not when cortexis is imported.
 */
export const resilienceSettingsSchema = schemaOnFirstUse(lazyResilienceSettingsSchema);

/** What `config.resilience` accepts. */
export type ResilienceSettingsInput = z.input<ReturnType<typeof lazyResilienceSettingsSchema>>;

/** Resilience settings with every default applied. */
export type ResilienceSettings = z.output<ReturnType<typeof lazyResilienceSettingsSchema>>;

/** Default rate limits of the engine (see docs/resilience.md). */
export const RATE_LIMIT_DEFAULTS = {
  enabled: false,
  limit: 60,
  windowMs: 300_000,
  flood: { enabled: true, messages: 5, minGapMs: 2_000 },
} as const;

/** Schema of the flood detection settings (built on the first call). */
export const floodSettingsSchema = lazySchema(() =>
  z.strictObject({
    /** Whether flood detection is on (default true). */
    enabled: z._default(z.boolean(), RATE_LIMIT_DEFAULTS.flood.enabled),
    /** Messages whose mean gap is measured, the current one included (default 5). */
    messages: z._default(intRange(2, 100), RATE_LIMIT_DEFAULTS.flood.messages),
    /** A mean gap below this is a flood, ms (default 2 000). */
    minGapMs: z._default(intRange(1, 3_600_000), RATE_LIMIT_DEFAULTS.flood.minGapMs),
  }),
);

/**
 * Schema of `config.rateLimit` (built on the first call): opt-in on the engine. Unknown keys
 * are rejected.
 */
export const rateLimitSettingsSchema = lazySchema(() =>
  z.strictObject({
    /** Whether turns are rate limited (default false: library callers are trusted code). */
    enabled: z._default(z.boolean(), RATE_LIMIT_DEFAULTS.enabled),
    /** Most turns per key within `windowMs` (default 60). */
    limit: z._default(intRange(1, 1_000_000), RATE_LIMIT_DEFAULTS.limit),
    /** Sliding window, ms (default 300 000). */
    windowMs: z._default(intRange(1, 86_400_000), RATE_LIMIT_DEFAULTS.windowMs),
    /** Flood detection. */
    flood: z.prefault(floodSettingsSchema(), {}),
  }),
);

/** What `config.rateLimit` accepts. */
export type RateLimitSettingsInput = z.input<ReturnType<typeof rateLimitSettingsSchema>>;

/** Rate limit settings with every default applied. */
export type RateLimitSettings = z.output<ReturnType<typeof rateLimitSettingsSchema>>;

/** Validates resilience settings and applies defaults; throws `ConfigError` naming each bad field. */
export function resolveResilienceSettings(
  input: ResilienceSettingsInput | undefined,
): ResilienceSettings {
  const parsed = safeParse(lazyResilienceSettingsSchema(), input ?? {});
  if (!parsed.success) {
    const issues = parsed.issues.map((issue) => ({ ...issue, path: `resilience.${issue.path}` }));
    throw new ConfigError(`Invalid resilience settings: ${describeIssues(issues)}`, issues);
  }
  return parsed.data;
}
