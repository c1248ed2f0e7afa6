import type { CallOptions } from './common.js';

/** The outcome of one counted request. */
export interface RateLimitDecision {
  /** Whether the request may proceed. */
  readonly allowed: boolean;
  /** Why it was refused: too many in the window, or messages too close together. */
  readonly reason?: 'window' | 'flood';
  /** Requests left in the current window. */
  readonly remaining: number;
  /** When refused, how long to wait before trying again. */
  readonly retryAfterMs: number;
}

/**
 * Counts requests per key and decides whether to allow them. Keys name a budget and who spends
 * it (a user, or a client IP), built with `rateLimitKey` so that they never collide; a limiter
 * treats them as opaque strings.
 */
export interface RateLimiter {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Records one request for `key` at `now` (epoch ms) and decides on it. */
  hit(key: string, now: number, options?: CallOptions): Promise<RateLimitDecision>;
}

/** Flood detection settings. */
export interface FloodSettings {
  /** Whether flood detection is on (default true). */
  readonly enabled?: boolean | undefined;
  /** Messages whose mean gap is measured, the current one included (default 5). */
  readonly messages?: number | undefined;
  /** A mean gap below this is a flood, ms (default 2 000). */
  readonly minGapMs?: number | undefined;
}
