/**
 * `cortexis/redis`: a `RateLimiter` on Redis, so every app instance shares one limit per key.
 * Same semantics as the in-memory limiter (seed 002, Rate Limiting): a sliding window per key
 * (default 60 requests per 300 s) and flood detection (the mean gap of the last 5 messages,
 * the current one included, below 2 s); a refused request is not counted, and `retryAfterMs`
 * is exact. Each hit is one atomic Lua script on a sorted set of allowed hit times per key,
 * so concurrent hits from many instances never overshoot the limit.
 *
 * Bring your own connected client: the `redis` package (v5 or v6; an optional peer dependency,
 * never imported here) fits {@link RedisScriptClient} as is, a cluster client too; for ioredis
 * pass a two-line adapter (see {@link RedisScriptClient}).
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { createChatEngine } from 'cortexis';
 * import { createRedisRateLimiter } from 'cortexis/redis';
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const engine = createChatEngine({
 *   rateLimit: { enabled: true, limit: 60, windowMs: 300_000 },
 *   rateLimiter: createRedisRateLimiter({ client, limit: 60, windowMs: 300_000 }),
 * });
 * // … on shutdown:
 * await client.close();
 * ```
 * @module
 */
import { ConfigError, ValidationError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.js';
import { ulid } from '../../util/ids.js';
import type { FloodSettings } from '../../ports/rate-limiter.js';

export type { FloodSettings } from '../../ports/rate-limiter.js';

/** The keys and arguments of one script call, as node-redis takes them. */
export interface RedisScriptArguments {
  /** Keys the script touches (`KEYS`). */
  keys: string[];
  /** Other arguments (`ARGV`). */
  arguments: string[];
}

/**
 * The little of a Redis client the limiter uses: `EVAL` and, optionally, `EVALSHA` (used
 * first when present, falling back to `EVAL` on `NOSCRIPT`). A connected node-redis client
 * (`createClient()` / `createCluster()`) fits as is. For ioredis:
 *
 * ```ts
 * const client = {
 *   eval: (script, { keys, arguments: args }) => redis.eval(script, keys.length, ...keys, ...args),
 *   evalSha: (sha, { keys, arguments: args }) => redis.evalsha(sha, keys.length, ...keys, ...args),
 * };
 * ```
 *
 * Replies are the script's array of integers (numbers, numeric strings or bigints).
 */
export interface RedisScriptClient {
  /** Runs a Lua script (`EVAL`). */
  eval(script: string, options: RedisScriptArguments): Promise<unknown>;
  /** Runs a cached Lua script by SHA-1 (`EVALSHA`); rejects with `NOSCRIPT` when not cached. */
  evalSha?(sha1: string, options: RedisScriptArguments): Promise<unknown>;
}

/** Settings of {@link createRedisRateLimiter}; `config.rateLimit` fits besides `client`. */
export interface RedisRateLimiterSettings {
  /** A connected Redis client; the limiter never connects or closes it. */
  readonly client: RedisScriptClient;
  /** Prepended to every limiter key (default `cortexis:rl:`); share it across instances. */
  readonly prefix?: string | undefined;
  /** Most requests per key within `windowMs` (default 60). */
  readonly limit?: number | undefined;
  /** Sliding window, ms (default 300 000). */
  readonly windowMs?: number | undefined;
  /** Flood detection: settings, `true` for the defaults, `false` to turn it off (default on). */
  readonly flood?: boolean | FloodSettings | undefined;
  /** Adapter name reported in events and errors (default `redis`). */
  readonly name?: string | undefined;
}

/** The Redis rate limiter, with its resolved settings. */
export interface RedisRateLimiter extends RateLimiter {
  /** The prefix of its Redis keys. */
  readonly prefix: string;
  /** The Redis key holding the hit times of `key`. */
  redisKey(key: string): string;
}

/**
 * One hit, atomically. KEYS[1]: sorted set of allowed hit times (score = time, member
 * unique). ARGV: now, limit, windowMs, flood gaps (messages - 1, 0 when off), minGapMs,
 * horizonMs, now - horizonMs, now - windowMs, member. Bounds and scores travel as strings,
 * since Lua prints numbers with 14 digits only. Mirrors `createMemoryRateLimiter` step by step.
 * Returns { allowed 0/1, reason 0 none / 1 window / 2 flood, remaining, retryAfterMs }.
 */
export const RATE_LIMIT_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local gaps = tonumber(ARGV[4])
local minGapMs = tonumber(ARGV[5])
local horizonMs = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[7])
local count = redis.call('ZCARD', key)
local inWindow = redis.call('ZCOUNT', key, '(' .. ARGV[8], '+inf')
local windowWait = 0
if inWindow >= limit then
  local leaving = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  windowWait = tonumber(leaving[2]) + windowMs - now
end
local floodWait = 0
if gaps > 0 and count >= gaps then
  local first = tonumber(redis.call('ZRANGE', key, count - gaps, count - gaps, 'WITHSCORES')[2])
  if (now - first) / gaps < minGapMs then
    floodWait = first + gaps * minGapMs - now
  end
end
if windowWait > 0 or floodWait > 0 then
  if windowWait > 0 then
    return {0, 1, 0, math.ceil(math.max(windowWait, floodWait))}
  end
  return {0, 2, math.max(0, limit - inWindow), math.ceil(floodWait)}
end
redis.call('ZADD', key, ARGV[1], ARGV[9])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, math.ceil(tonumber(last[2]) + horizonMs - now))
return {1, 0, math.max(0, limit - inWindow - 1), 0}
`;

function positiveInteger(path: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < 1) {
    throw new ValidationError(`${path} must be a positive integer`, [
      { path, message: 'must be a positive integer' },
    ]);
  }
  return result;
}

/** Hex SHA-1 of `text` with Web Crypto, or undefined where it is missing. */
async function sha1Hex(text: string): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return undefined;
  const digest = await subtle.digest('SHA-1', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.includes('NOSCRIPT');
}

/** Reads the script's reply into a decision; throws on anything else. */
function toDecision(reply: unknown): RateLimitDecision {
  const values = Array.isArray(reply) ? reply.map((value) => Number(value)) : [];
  if (values.length !== 4 || !values.every(Number.isFinite)) {
    throw new Error(`Unexpected reply from the Redis rate limit script: ${String(reply)}`);
  }
  const [allowed, reason, remaining, retryAfterMs] = values as [number, number, number, number];
  if (allowed === 1) return { allowed: true, remaining, retryAfterMs: 0 };
  return { allowed: false, reason: reason === 1 ? 'window' : 'flood', remaining, retryAfterMs };
}

/**
 * Creates a sliding-window rate limiter with flood detection on Redis, shared by every
 * instance using the same Redis and `prefix`. Throws `ConfigError` without a usable client
 * and `ValidationError` naming the field for a bad limit.
 *
 * @example
 * const limiter = createRedisRateLimiter({ client, limit: 60, windowMs: 300_000 });
 * const decision = await limiter.hit(rateLimitKey('message', 'user', userId), Date.now());
 * if (!decision.allowed) throw new RateLimitError('Too many messages', decision.retryAfterMs);
 */
export function createRedisRateLimiter(settings: RedisRateLimiterSettings): RedisRateLimiter {
  const client = settings?.client as RedisScriptClient | undefined;
  if (!client || typeof client.eval !== 'function') {
    throw new ConfigError('client must be a connected Redis client with eval()', [
      { path: 'client', message: 'must be a connected Redis client with eval()' },
    ]);
  }
  const prefix = settings.prefix ?? 'cortexis:rl:';
  if (typeof prefix !== 'string') {
    throw new ValidationError('prefix must be a string', [
      { path: 'prefix', message: 'must be a string' },
    ]);
  }
  const limit = positiveInteger('limit', settings.limit, 60);
  const windowMs = positiveInteger('windowMs', settings.windowMs, 300_000);
  const flood = typeof settings.flood === 'object' ? settings.flood : {};
  const floodOn = settings.flood !== false && flood.enabled !== false;
  const floodMessages = positiveInteger('flood.messages', flood.messages, 5);
  const minGapMs = positiveInteger('flood.minGapMs', flood.minGapMs, 2_000);
  if (floodOn && floodMessages < 2) {
    throw new ValidationError('flood.messages must be at least 2', [
      { path: 'flood.messages', message: 'must be at least 2' },
    ]);
  }
  const gaps = floodOn ? floodMessages - 1 : 0;
  // How long a key's allowed requests matter: for the window, and for the flood gaps.
  const horizonMs = Math.max(windowMs, gaps * minGapMs);
  const name = settings.name ?? 'redis';
  const evalSha = client.evalSha?.bind(client);
  let sha: Promise<string | undefined> | undefined;

  /** Runs the script by hash when the client can, loading it with `EVAL` when not cached. */
  async function run(options: RedisScriptArguments): Promise<unknown> {
    if (evalSha) {
      const hash = await (sha ??= sha1Hex(RATE_LIMIT_SCRIPT).catch(() => undefined));
      if (hash) {
        try {
          return await evalSha(hash, options);
        } catch (error) {
          if (!isNoScript(error)) throw error;
        }
      }
    }
    return client!.eval(RATE_LIMIT_SCRIPT, options);
  }

  const redisKey = (key: string): string => `${prefix}${key}`;

  return {
    name,
    specificationVersion: 'v1',
    prefix,
    redisKey,

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
      const reply = await run({
        keys: [redisKey(key)],
        arguments: [
          String(now),
          String(limit),
          String(windowMs),
          String(gaps),
          String(minGapMs),
          String(horizonMs),
          String(now - horizonMs),
          String(now - windowMs),
          `${now}:${ulid()}`,
        ],
      });
      return toDecision(reply);
    },
  };
}
export {
  withRedisTurnLease,
  type RedisEvalClient,
  type RedisTurnLeaseSettings,
} from './turn-lease.js';
