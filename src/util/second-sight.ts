/**
 * A bounded cache for analyses of texts that come back (the chunks a turn retrieves: popular
 * pages, follow-ups), kept from a text's **second** sight on. Keeping every first sight costs
 * more than it saves: the kept objects outlive V8's young generation, and most chunks are seen
 * once (the extractive model's `composeAnswer` over 246 SciFact requests took 1.5–1.6 ms with
 * no cache and 2.2–2.3 ms keeping every analysis). Texts seen once are remembered by reference
 * only (the caller holds them anyway), and that set is emptied when full.
 *
 * Every cache made here, and every other process-wide text cache enrolled with
 * {@link registerTextCache}, is emptied by {@link forgetTextAnalyses}, which the engine calls
 * whenever documents are ingested or deleted, so no analysis of deleted text outlives it.
 * @module
 */

/** A cache of values computed from a text. */
export interface SecondSightCache<V> {
  /**
   * The value for `text`: the kept one when `fits` accepts it (default: always), else
   * `compute()`, kept when the text has been seen before.
   */
  get(text: string, compute: () => V, fits?: (kept: V) => boolean): V;
  /** Forgets every text and value. */
  clear(): void;
}

const caches = new Set<{ clear(): void }>();

/**
 * Enrols a process-wide cache keyed by (or holding) document text, such as the judge's
 * analysed sources, so that {@link forgetTextAnalyses} empties it too.
 */
export function registerTextCache(cache: { clear(): void }): void {
  caches.add(cache);
}

/** Empties every cache of document text in the process (deleted or replaced documents). */
export function forgetTextAnalyses(): void {
  for (const cache of caches) cache.clear();
}

/** Settings of a second-sight cache besides its capacity. */
export interface SecondSightSettings {
  /** Most texts remembered as seen once (default 8192); the set is emptied when full. */
  readonly seenOnceLimit?: number;
  /**
   * Whether {@link forgetTextAnalyses} empties it (default true: the process-wide caches of
   * stages). A cache owned by a store and emptied on the store's own writes passes false, so
   * that it is not held for the life of the process.
   */
  readonly forgetWithDeletes?: boolean;
}

/**
 * Creates a cache keeping at most `capacity` values, least recently used out first (keys are
 * texts, or any string naming what the value was computed from).
 */
export function createSecondSightCache<V>(
  capacity: number,
  settings: SecondSightSettings = {},
): SecondSightCache<V> {
  const seenOnceLimit = settings.seenOnceLimit ?? 8192;
  const kept = new Map<string, V>();
  const seenOnce = new Set<string>();
  const cache: SecondSightCache<V> = {
    get(text, compute, fits) {
      const value = kept.get(text);
      if (value !== undefined) {
        kept.delete(text);
        if (fits === undefined || fits(value)) {
          kept.set(text, value);
          return value;
        }
      }
      const computed = compute();
      if (value !== undefined || seenOnce.delete(text)) {
        kept.set(text, computed);
        if (kept.size > capacity) kept.delete(kept.keys().next().value!);
      } else {
        if (seenOnce.size >= seenOnceLimit) seenOnce.clear();
        seenOnce.add(text);
      }
      return computed;
    },
    clear() {
      kept.clear();
      seenOnce.clear();
    },
  };
  if (settings.forgetWithDeletes ?? true) registerTextCache(cache);
  return cache;
}
