/**
 * An engine's background work (compaction after turns, evictions, feedback pulls): each task
 * runs under its session's lock when it touches one, failures become `error` events, and
 * `settled` waits for all of it (`engine.flush`).
 */
import type { EngineEmitter } from '../events.js';
import type { KeyedLock } from '../util/keyed-lock.js';

/** Runs tasks in the background of an engine and tells when they are all done. */
export interface Background {
  /** Starts a task, under the session's lock when `sessionId` is given. */
  run(where: string, task: () => Promise<unknown>, sessionId?: string): void;
  /** Resolves when no task is running, those started meanwhile included. */
  settled(): Promise<void>;
}

/** The background work of an engine, on its lock and its event emitter. */
export function createBackground(lock: KeyedLock, events: EngineEmitter): Background {
  // Background work (`flush` awaits it) runs under a session's lock when it touches one:
  // after the turn still running on it, before the next. Failures become `error` events.
  const background = new Set<Promise<void>>();
  const inBackground = (where: string, task: () => Promise<unknown>, sessionId?: string): void => {
    const run = sessionId === undefined ? task() : lock.run(sessionId, task);
    const done = run.then(
      () => undefined,
      (error: unknown) => void events.emit('error', { where, error }),
    );
    background.add(done);
    void done.finally(() => background.delete(done));
  };
  return {
    run: inBackground,
    async settled() {
      while (background.size > 0) await Promise.all([...background]);
    },
  };
}
