/**
 * Keeps a process's learned boost in step with a learning sink that other processes write
 * to. The boost is derived state: every feedback record in the sink is learned exactly once
 * per process, whether this process recorded it (`noteLearned`) or another one did (a
 * `pull` reads what was recorded since the last pull). Pulls look back `lookbackMs` before
 * the newest record seen, so a record committed late by a slower instance, or stamped by a
 * clock a little behind, is still picked up; ids already learned are skipped.
 *
 * @example
 * ```ts
 * const sync = createFeedbackSync({ sink, learn: (record) => learnFromFeedback(record), intervalMs: 30_000 });
 * await sync.pull(); // at start: everything stored so far
 * sync.pullIfDue(); // before a turn: in the background when the interval has passed
 * ```
 */
import type { FeedbackRecord } from '../ports/chat-records.js';
import type { LearningSink } from '../ports/learning-sink.js';
import { FEEDBACK_PAGE_LIMIT } from './feedback.js';

/** Settings of {@link createFeedbackSync}. */
export interface FeedbackSyncSettings {
  /** Where feedback is stored. */
  readonly sink: Pick<LearningSink, 'listFeedback'>;
  /** Learns one record (feeds the boost). */
  readonly learn: (record: FeedbackRecord) => Promise<unknown>;
  /** Least time between two pulls started by `pullIfDue`; 0 never pulls after the first. */
  readonly intervalMs: number;
  /** How far before the newest record seen a pull starts (default 60 s). */
  readonly lookbackMs?: number | undefined;
  /** Clock in ms (default `Date.now`). */
  readonly now?: (() => number) | undefined;
  /** Called when a pull fails; the next due pull tries again from the same point. */
  readonly onError?: ((error: unknown) => void) | undefined;
}

/** Pulls feedback recorded elsewhere into this process's boost. */
export interface FeedbackSync {
  /** Learns every record stored since the last pull; one pull at a time (callers share it). */
  pull(): Promise<void>;
  /** Starts a pull when `intervalMs` has passed since the last one started; never waits. */
  pullIfDue(): void;
  /** Marks a record this process learned itself, so a pull does not learn it again. */
  noteLearned(record: FeedbackRecord): void;
  /** Resolves when a pull in flight has finished. */
  settled(): Promise<void>;
}

/** Default lookback of a pull (ms). */
export const DEFAULT_FEEDBACK_LOOKBACK_MS = 60_000;

/** A {@link FeedbackSync} over a sink. */
export function createFeedbackSync(settings: FeedbackSyncSettings): FeedbackSync {
  const lookbackMs = settings.lookbackMs ?? DEFAULT_FEEDBACK_LOOKBACK_MS;
  const now = settings.now ?? Date.now;
  /** Ids learned, with their record time; those older than the lookback window are dropped. */
  const learned = new Map<string, number>();
  let newest = 0;
  let lastStarted = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;

  const remember = (record: FeedbackRecord): void => {
    const at = Date.parse(record.createdAt);
    const time = Number.isFinite(at) ? at : 0;
    learned.set(record.id, time);
    if (time > newest) newest = time;
  };

  const prune = (): void => {
    const oldest = newest - lookbackMs;
    for (const [id, time] of learned) if (time < oldest) learned.delete(id);
  };

  const run = async (): Promise<void> => {
    let since = Math.max(0, newest - lookbackMs);
    for (;;) {
      const page = await settings.sink.listFeedback({ since: new Date(since).toISOString() });
      for (const record of page) {
        if (learned.has(record.id)) continue;
        await settings.learn(record);
        remember(record);
      }
      const last = page.at(-1);
      // A full page may have more after it: continue from its last record's time.
      if (page.length < FEEDBACK_PAGE_LIMIT || !last) break;
      const next = Date.parse(last.createdAt);
      if (!(next > since)) break;
      since = next;
    }
    prune();
  };

  const pull = (): Promise<void> => {
    if (inFlight) return inFlight;
    lastStarted = now();
    const current = run().finally(() => {
      inFlight = undefined;
    });
    inFlight = current;
    return current;
  };

  return {
    pull,
    pullIfDue() {
      if (settings.intervalMs <= 0 || inFlight) return;
      if (now() - lastStarted < settings.intervalMs) return;
      pull().catch((error: unknown) => settings.onError?.(error));
    },
    noteLearned: remember,
    async settled() {
      await inFlight?.catch(() => undefined);
    },
  };
}
