/**
 * In-memory `RateLimiter` (seed 002, Rate Limiting): a sliding window per key (default 60
 * requests per 300 s) and flood detection (the mean gap of the last 5 messages, the current
 * one included, below 2 s). Only allowed requests are counted: a refused one leaves the
 * window and the flood history unchanged, so a client that waits `retryAfterMs` gets through.
 * One process only; use a shared adapter (Redis) when several app instances serve one user.
 */
import { ValidationError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { FloodSettings, RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.js';

/** Settings of {@link createMemoryRateLimiter}; `config.rateLimit` fits as is. */
export interface MemoryRateLimiterSettings {
  /** Most requests per key within `windowMs` (default 60). */
  readonly limit?: number | undefined;
  /** Sliding window, ms (default 300 000). */
  readonly windowMs?: number | undefined;
  /** Flood detection: settings, `true` for the defaults, `false` to turn it off (default on). */
  readonly flood?: boolean | FloodSettings | undefined;
  /**
   * Most keys tracked at once (default 50 000). Keys with no request left in the window are
   * dropped as time passes; beyond this many, the least recently allowed key is forgotten
   * (its count starts over), which bounds memory under a flood of distinct keys.
   */
  readonly maxKeys?: number | undefined;
}

/** The in-memory rate limiter, with its size for monitoring. */
export interface MemoryRateLimiter extends RateLimiter {
  /** Keys currently tracked. */
  readonly size: number;
  /** Forgets `key` (or every key). */
  reset(key?: string): void;
}

function positiveInteger(path: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < 1) {
    throw new ValidationError(`${path} must be a positive integer`, [
      { path, message: 'must be a positive integer' },
    ]);
  }
  return result;
}

/** Index of the first time in the sorted `times` that is > `bound`. */
function firstAfter(times: readonly number[], bound: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (times[middle]! > bound) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Creates an in-memory sliding-window rate limiter with flood detection.
 *
 * @example
 * const limiter = createMemoryRateLimiter({ limit: 60, windowMs: 300_000 });
 * const decision = await limiter.hit(rateLimitKey('message', 'user', userId), Date.now());
 * if (!decision.allowed) throw new RateLimitError('Too many messages', decision.retryAfterMs);
 */
export function createMemoryRateLimiter(
  settings: MemoryRateLimiterSettings = {},
): MemoryRateLimiter {
  const limit = positiveInteger('limit', settings.limit, 60);
  const windowMs = positiveInteger('windowMs', settings.windowMs, 300_000);
  const maxKeys = positiveInteger('maxKeys', settings.maxKeys, 50_000);
  const flood = typeof settings.flood === 'object' ? settings.flood : {};
  const floodOn = settings.flood !== false && flood.enabled !== false;
  const floodMessages = positiveInteger('flood.messages', flood.messages, 5);
  const minGapMs = positiveInteger('flood.minGapMs', flood.minGapMs, 2_000);
  if (floodOn && floodMessages < 2) {
    throw new ValidationError('flood.messages must be at least 2', [
      { path: 'flood.messages', message: 'must be at least 2' },
    ]);
  }
  // How long a key's allowed requests matter: for the window, and for the flood gaps.
  const horizonMs = Math.max(windowMs, floodOn ? (floodMessages - 1) * minGapMs : 0);

  /** Allowed request times per key, ascending; keys in order of their last allowed request. */
  const keys = new Map<string, number[]>();

  /** Drops keys whose last allowed request is older than the horizon (oldest first). */
  function sweep(now: number): void {
    for (const [key, times] of keys) {
      if ((times[times.length - 1] ?? -Infinity) > now - horizonMs) return;
      keys.delete(key);
    }
  }

  function decide(times: number[], now: number): RateLimitDecision {
    const inWindow = times.length - firstAfter(times, now - windowMs);
    let windowWait = 0;
    if (inWindow >= limit) {
      // The request is allowed once enough of the counted ones have left the window.
      const leaving = times[times.length - inWindow + (inWindow - limit)]!;
      windowWait = leaving + windowMs - now;
    }
    let floodWait = 0;
    if (floodOn && times.length >= floodMessages - 1) {
      const first = times[times.length - (floodMessages - 1)]!;
      if ((now - first) / (floodMessages - 1) < minGapMs) {
        floodWait = first + (floodMessages - 1) * minGapMs - now;
      }
    }
    if (windowWait > 0 || floodWait > 0) {
      return {
        allowed: false,
        reason: windowWait > 0 ? 'window' : 'flood',
        remaining: windowWait > 0 ? 0 : Math.max(0, limit - inWindow),
        retryAfterMs: Math.ceil(Math.max(windowWait, floodWait)),
      };
    }
    return { allowed: true, remaining: Math.max(0, limit - inWindow - 1), retryAfterMs: 0 };
  }

  return {
    name: 'memory',
    specificationVersion: 'v1',

    async hit(key: string, now: number, options?: CallOptions): Promise<RateLimitDecision> {
      throwIfAborted(options?.signal);
      if (typeof key !== 'string' || key.length === 0) {
        throw new ValidationError('key must be a non-empty string', [
          { path: 'key', message: 'must be a non-empty string' },
        ]);
      }
      if (typeof now !== 'number' || !Number.isFinite(now)) {
        throw new ValidationError('now must be a finite number (epoch ms)', [
          { path: 'now', message: 'must be a finite number' },
        ]);
      }
      sweep(now);
      const times = keys.get(key) ?? [];
      const stale = firstAfter(times, now - horizonMs);
      if (stale > 0) times.splice(0, stale);
      const decision = decide(times, now);
      if (!decision.allowed) return decision;
      // Count it (kept sorted should the caller's clock step back), most recent key last.
      times.splice(firstAfter(times, now), 0, now);
      keys.delete(key);
      keys.set(key, times);
      if (keys.size > maxKeys) {
        const oldest = keys.keys().next();
        if (!oldest.done) keys.delete(oldest.value);
      }
      return decision;
    },

    get size() {
      return keys.size;
    },

    reset(key?: string) {
      if (key === undefined) keys.clear();
      else keys.delete(key);
    },
  };
}
