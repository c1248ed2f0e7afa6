/**
 * The turn lease on Redis: `withRedisTurnLease(sessionStore, { client })` returns the session
 * store with its `acquireTurn` taken by a Redis key per session (`SET … NX PX`, renewed and
 * deleted only by its holder, in Lua scripts), so that engines whose session store has no
 * lease of its own (or that already share Redis) run one turn at a time per session.
 *
 * @example
 * ```ts
 * const engine = createChatEngine({
 *   sessionStore: withRedisTurnLease(mySessionStore, { client }),
 * });
 * ```
 */
import type { AcquireTurnOptions, SessionStore } from '../../ports/session-store.js';
import { acquireLease, type LeaseOperations } from '../shared/turn-lease.js';

/** What the lease uses of a Redis client: `EVAL` (a node-redis client fits, see `RedisScriptClient`). */
export interface RedisEvalClient {
  /** Runs a Lua script. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Settings of {@link withRedisTurnLease}. */
export interface RedisTurnLeaseSettings {
  /** A connected Redis client; never connected or closed here. */
  readonly client: RedisEvalClient;
  /** Prepended to every lease key (default `cortexis:turn:`); share it across instances. */
  readonly prefix?: string | undefined;
}

/** Takes the lease: KEYS[1] the lease key; ARGV holder, ttl ms. 1 when taken. */
const ACQUIRE = `if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
return 0`;
/** Renews it while the holder has it. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;
/** Deletes it while the holder has it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** The session store with its turn lease on Redis (see the module comment). */
export function withRedisTurnLease(
  store: SessionStore,
  settings: RedisTurnLeaseSettings,
): SessionStore {
  const { client } = settings;
  const prefix = settings.prefix ?? 'cortexis:turn:';
  // JSON keeps every id apart (`a:b` + `c` never meets `a` + `b:c`).
  const key = (sessionId: string): string => `${prefix}${JSON.stringify(sessionId)}`;
  const operations: LeaseOperations = {
    async tryAcquire(sessionId, holder, now, expiresAt) {
      const taken = await client.eval(ACQUIRE, {
        keys: [key(sessionId)],
        arguments: [holder, String(Math.max(1, expiresAt - now))],
      });
      return Number(taken) === 1;
    },
    async renew(sessionId, holder, expiresAt) {
      await client.eval(RENEW, {
        keys: [key(sessionId)],
        arguments: [holder, String(Math.max(1, expiresAt - Date.now()))],
      });
    },
    async release(sessionId, holder) {
      await client.eval(RELEASE, { keys: [key(sessionId)], arguments: [holder] });
    },
  };
  const acquireTurn = (sessionId: string, options?: AcquireTurnOptions) =>
    acquireLease(operations, sessionId, options);
  // A proxy, not a copy: a store that is a class instance keeps its methods and fields.
  return new Proxy(store, {
    get(target, property) {
      if (property === 'acquireTurn') return acquireTurn;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (target, property) => property === 'acquireTurn' || Reflect.has(target, property),
  });
}
