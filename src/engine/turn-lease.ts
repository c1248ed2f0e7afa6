/**
 * One turn at a time per session across engines: a turn runs holding its session's lease from
 * the session store (`SessionStore.acquireTurn`), when the store has one, so that engines in
 * other processes sharing the store wait for it (within one engine, the engine's own lock
 * already orders them). Each answer is then stored right after its question.
 */
import { AbortError } from '../errors/index.js';
import type { EngineEmitter } from '../events.js';
import type { SessionStore } from '../ports/session-store.js';
import { safeParse } from '../util/schema.js';
import { sessionIdSchema } from '../validate.js';

/** Runs `task` holding the session's turn lease (or as it is, without a lease to take). */
export async function withTurnLease<T>(
  store: SessionStore,
  events: EngineEmitter,
  sessionId: string,
  signal: unknown,
  task: () => Promise<T>,
): Promise<T> {
  // An id the turn will refuse takes no lease: nothing is written before the refusal.
  if (!store.acquireTurn || !safeParse(sessionIdSchema(), sessionId).success) return task();
  let lease;
  try {
    lease = await store.acquireTurn(sessionId, signal instanceof AbortSignal ? { signal } : {});
  } catch (error) {
    // Aborted before or while waiting: the turn itself reports the abort (as a stream part,
    // too) and stores nothing, so it runs and stops at its first check.
    if (AbortError.isInstance(error)) return task();
    throw error;
  }
  try {
    return await task();
  } finally {
    // A lease that cannot be released expires on its own; the turn's outcome stands.
    await lease
      .release()
      .catch((error: unknown) => events.emit('error', { where: 'turn-lease', error }));
  }
}
