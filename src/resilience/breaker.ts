/**
 * A keyed circuit breaker. Per key: `closed` until `failureThreshold` consecutive failures
 * fall within `windowMs` (a success clears the count; failures older than the window drop
 * out), then `open` for `cooldownMs` — every call is refused with `CircuitOpenError`, no
 * provider call — then `half-open`: one trial call goes through; its success closes the
 * breaker, its failure opens it again. Aborts and 4xx client errors are not failures.
 *
 * A small hand-written state machine rather than `opossum`: opossum opens on an error
 * *percentage* over a volume threshold (it cannot express "5 failures in 120 s"), loads
 * Node's `events` module (a Node builtin the core entry must not depend on; the esbuild
 * check of the core entry fails on it), and runs interval timers per breaker, which a
 * breaker per conversation would multiply. This one has no timers: time is read when a
 * call comes (injectable `now`), and a key in the closed state with no failures is dropped.
 */
import { CortexisError, isRetryableStatus } from '../errors/index.js';
import { CircuitOpenError } from './errors.js';
import { isAbortError } from './retry.js';

/** State of one breaker key. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** A breaker key changed state. */
export interface BreakerStateChange {
  /** The breaker key. */
  readonly key: string;
  /** The new state. */
  readonly state: BreakerState;
  /** The state before. */
  readonly previous: BreakerState;
  /** Failures counted in the window when it changed. */
  readonly failures: number;
  /** When `open`: time until a trial call is let through, ms; otherwise 0. */
  readonly retryAfterMs: number;
}

/** What the breaker knows about a key. */
export interface BreakerSnapshot {
  /** Current state. */
  readonly state: BreakerState;
  /** Consecutive failures within the window. */
  readonly failures: number;
  /** When `open`: time until a trial call is let through, ms; otherwise 0. */
  readonly retryAfterMs: number;
}

/** Settings of {@link createCircuitBreaker}. */
export interface CircuitBreakerSettings {
  /** Provider name, for `CircuitOpenError` (default `provider`). */
  readonly provider?: string | undefined;
  /** Consecutive failures within `windowMs` that open a key (default 5). */
  readonly failureThreshold?: number | undefined;
  /** Rolling window of the failures, ms (default 120 000). */
  readonly windowMs?: number | undefined;
  /** How long an open key refuses calls before a half-open trial, ms (default 30 000). */
  readonly cooldownMs?: number | undefined;
  /** Which errors count as failures (default {@link countsAsFailure}). */
  readonly isFailure?: ((error: unknown) => boolean) | undefined;
  /** Called on every state change of a key; a throwing callback is ignored. */
  readonly onStateChange?: ((change: BreakerStateChange) => void) | undefined;
  /** Clock, epoch ms (default `Date.now`). */
  readonly now?: (() => number) | undefined;
  /** Most keys tracked at once; the least recently failed is forgotten first (default 10 000). */
  readonly maxKeys?: number | undefined;
}

/** The right to make one call, with its outcome to report. Settles once; later calls are ignored. */
export interface BreakerPermit {
  /** Whether this call is the half-open trial. */
  readonly trial: boolean;
  /** The call succeeded. */
  success(): void;
  /** The call failed with `error` (counted only when it is a failure, see `isFailure`). */
  failure(error: unknown): void;
  /** The call ended without an outcome (e.g. the consumer stopped reading). */
  release(): void;
}

/** A keyed circuit breaker. */
export interface CircuitBreaker {
  /** A permit for one call on `key`; throws `CircuitOpenError` when the key is open. */
  acquire(key: string): BreakerPermit;
  /** Runs `call` under a permit and reports its outcome. */
  run<T>(key: string, call: () => Promise<T>): Promise<T>;
  /** The state of `key` (an unknown key is closed). */
  state(key: string): BreakerState;
  /** State, failure count and wait of `key`. */
  snapshot(key: string): BreakerSnapshot;
  /** Closes `key` (or every key) and forgets its failures. */
  reset(key?: string): void;
  /** Keys currently tracked (closed keys without failures are not). */
  readonly size: number;
}

/** How long a second caller waits while a half-open trial is in flight, ms. */
const TRIAL_IN_FLIGHT_WAIT_MS = 1_000;

const CLIENT_ERROR_CODES = new Set(['validation_error', 'config_error', 'not_found', 'conflict']);

/**
 * Whether an error says the provider is failing: yes for network errors, timeouts, 5xx,
 * 408/409/429 and unknown errors; no for aborts, an open circuit, other 4xx statuses and
 * validation / config / not-found / conflict errors (the request was wrong, not the provider).
 */
export function countsAsFailure(error: unknown): boolean {
  if (isAbortError(error) || CircuitOpenError.isInstance(error)) return false;
  if (CortexisError.isInstance(error)) {
    if (CLIENT_ERROR_CODES.has(error.code)) return false;
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return isRetryableStatus(status);
    }
  }
  return true;
}

interface Entry {
  state: BreakerState;
  /** Times of the consecutive failures in the window, oldest first. */
  failures: number[];
  openedAt: number;
  /** When the half-open trial started; undefined when none is in flight. */
  trialAt: number | undefined;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result <= 0) {
    throw new RangeError(`createCircuitBreaker: ${name} must be a positive number`);
  }
  return result;
}

/**
 * Creates a keyed circuit breaker (see the module comment for the state machine).
 *
 * @example
 * const breaker = createCircuitBreaker({ provider: 'openai', onStateChange: (change) => console.log(change) });
 * const result = await breaker.run('openai', () => llm.generate(request));
 */
export function createCircuitBreaker(settings: CircuitBreakerSettings = {}): CircuitBreaker {
  const provider = settings.provider ?? 'provider';
  const threshold = positive('failureThreshold', settings.failureThreshold, 5);
  const windowMs = positive('windowMs', settings.windowMs, 120_000);
  const cooldownMs = positive('cooldownMs', settings.cooldownMs, 30_000);
  const maxKeys = positive('maxKeys', settings.maxKeys, 10_000);
  const isFailure = settings.isFailure ?? countsAsFailure;
  const now = settings.now ?? Date.now;
  const entries = new Map<string, Entry>();

  function transition(key: string, entry: Entry, state: BreakerState, at: number): void {
    const previous = entry.state;
    entry.state = state;
    if (state === 'open') entry.openedAt = at;
    if (state !== 'half-open') entry.trialAt = undefined;
    if (state === 'closed') {
      entry.failures = [];
      entries.delete(key);
    }
    try {
      settings.onStateChange?.({
        key,
        state,
        previous,
        failures: entry.failures.length,
        retryAfterMs: state === 'open' ? cooldownMs : 0,
      });
    } catch {
      // A listener never breaks a call.
    }
  }

  /** The entry of `key` with time applied: old failures dropped, an elapsed cooldown half-opened. */
  function current(key: string, at: number): Entry | undefined {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.state === 'closed') {
      while (entry.failures.length > 0 && entry.failures[0]! <= at - windowMs)
        entry.failures.shift();
      if (entry.failures.length === 0) {
        entries.delete(key);
        return undefined;
      }
    } else if (entry.state === 'open' && at >= entry.openedAt + cooldownMs) {
      transition(key, entry, 'half-open', at);
    }
    return entry;
  }

  function recordFailure(key: string, at: number): void {
    let entry = current(key, at);
    if (!entry) {
      if (entries.size >= maxKeys) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entry = { state: 'closed', failures: [], openedAt: 0, trialAt: undefined };
      entries.set(key, entry);
    }
    if (entry.state !== 'closed') return;
    entry.failures.push(at);
    // Most recently failed last, so the oldest key is evicted first.
    entries.delete(key);
    entries.set(key, entry);
    if (entry.failures.length >= threshold) transition(key, entry, 'open', at);
  }

  function acquire(key: string): BreakerPermit {
    const at = now();
    const entry = current(key, at);
    let trial = false;
    if (entry?.state === 'open') {
      throw new CircuitOpenError({ provider, key, retryAfterMs: entry.openedAt + cooldownMs - at });
    }
    if (entry?.state === 'half-open') {
      // A trial that never reported back (a stream nobody finished) is given up after a cooldown.
      if (entry.trialAt !== undefined && at - entry.trialAt < cooldownMs) {
        throw new CircuitOpenError({ provider, key, retryAfterMs: TRIAL_IN_FLIGHT_WAIT_MS });
      }
      entry.trialAt = at;
      trial = true;
    }
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      return true;
    };
    return {
      trial,
      success() {
        if (!settle()) return;
        const latest = entries.get(key);
        if (!latest) return;
        if (trial && latest.state === 'half-open') transition(key, latest, 'closed', now());
        else if (!trial && latest.state === 'closed') entries.delete(key); // consecutive count restarts
      },
      failure(error) {
        if (!settle()) return;
        const latest = entries.get(key);
        if (!isFailure(error)) {
          if (trial && latest?.state === 'half-open') latest.trialAt = undefined;
          return;
        }
        if (trial) {
          if (latest?.state === 'half-open') transition(key, latest, 'open', now());
          return;
        }
        recordFailure(key, now());
      },
      release() {
        if (!settle()) return;
        const latest = entries.get(key);
        if (trial && latest?.state === 'half-open') latest.trialAt = undefined;
      },
    };
  }

  return {
    acquire,
    async run<T>(key: string, call: () => Promise<T>): Promise<T> {
      const permit = acquire(key);
      try {
        const result = await call();
        permit.success();
        return result;
      } catch (error) {
        permit.failure(error);
        throw error;
      }
    },
    state(key) {
      return current(key, now())?.state ?? 'closed';
    },
    snapshot(key) {
      const at = now();
      const entry = current(key, at);
      if (!entry) return { state: 'closed', failures: 0, retryAfterMs: 0 };
      return {
        state: entry.state,
        failures: entry.failures.length,
        retryAfterMs: entry.state === 'open' ? entry.openedAt + cooldownMs - at : 0,
      };
    },
    reset(key) {
      const keys = key === undefined ? [...entries.keys()] : [key];
      for (const name of keys) {
        const entry = entries.get(name);
        if (entry && entry.state !== 'closed') transition(name, entry, 'closed', now());
        entries.delete(name);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
