/**
 * The turn lease every shared store implements the same way (`SessionStore.acquireTurn`): a
 * lease row or key per session naming its holder and when it expires. Acquiring polls (2 ms,
 * doubling to 50 ms, with jitter) until the lease is free or expired; the holder renews it every
 * third of its time to live until it releases it. A store gives the three atomic operations.
 */
import { AbortError, ValidationError, throwIfAborted } from '../../errors/index.js';
import type { AcquireTurnOptions, TurnLease } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';
import { requireString } from './validate.js';

/** Default time to live of a turn lease, ms. */
export const DEFAULT_TURN_LEASE_TTL_MS = 10_000;

/** The atomic operations of a store's lease. Times are ms since the epoch. */
export interface LeaseOperations {
  /** Takes the lease for `holder` if nobody holds it or it expired before `now`; true if taken. */
  tryAcquire(sessionId: string, holder: string, now: number, expiresAt: number): Promise<boolean>;
  /** Moves the expiry of the lease while `holder` holds it. */
  renew(sessionId: string, holder: string, expiresAt: number): Promise<void>;
  /** Deletes the lease if `holder` holds it. */
  release(sessionId: string, holder: string): Promise<void>;
}

/** Checks the arguments of `acquireTurn`; returns the time to live. */
export function checkAcquireTurn(sessionId: unknown, options: AcquireTurnOptions = {}): number {
  requireString(sessionId, 'sessionId');
  const ttlMs = options.ttlMs ?? DEFAULT_TURN_LEASE_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 10 || ttlMs > 3_600_000) {
    throw new ValidationError('ttlMs must be an integer from 10 to 3,600,000', [
      { path: 'ttlMs', message: 'must be an integer from 10 to 3,600,000' },
    ]);
  }
  return ttlMs;
}

/** Waits `ms`, or rejects with `AbortError` when `signal` fires first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError('Waiting for the session turn was aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Acquires a session's lease through `operations` (see the module comment). */
export async function acquireLease(
  operations: LeaseOperations,
  sessionId: string,
  options: AcquireTurnOptions = {},
): Promise<TurnLease> {
  const ttlMs = checkAcquireTurn(sessionId, options);
  const holder = ulid();
  const signal = options.signal;
  for (let delay = 2; ; delay = Math.min(50, delay * 2)) {
    throwIfAborted(signal);
    const now = Date.now();
    if (await operations.tryAcquire(sessionId, holder, now, now + ttlMs)) break;
    await pause(delay / 2 + Math.random() * delay, signal);
  }
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      renewing = operations.renew(sessionId, holder, Date.now() + ttlMs).catch(() => undefined);
    },
    Math.max(5, Math.floor(ttlMs / 3)),
  );
  // A process may exit while holding one: the lease then expires on its own.
  (timer as { unref?: () => void }).unref?.();
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= (async () => {
        clearInterval(timer);
        await renewing;
        await operations.release(sessionId, holder);
      })();
      return released;
    },
  };
}
