/**
 * A small LRU map with a per-entry time-to-live: the one cache structure behind the query
 * embedding cache and the search-results cache.
 * @module
 */

/** Settings of an LRU cache. */
export interface LruSettings {
  /** Most entries kept (at least 1). */
  readonly maxEntries: number;
  /** How long an entry stays valid, ms. */
  readonly ttlMs: number;
  /** Clock in ms, injectable for tests (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

/** An LRU cache of values by string key. */
export interface LruCache<V> {
  /** The value, or undefined when absent or expired (a hit refreshes its recency). */
  get(key: string): V | undefined;
  /** Stores a value, evicting the least recently used entry when full. */
  set(key: string, value: V): void;
  /** Removes every entry. */
  clear(): void;
  /** Number of entries held (expired ones included until touched or evicted). */
  readonly size: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

/** An LRU cache (a `Map` in recency order) with a per-entry TTL. */
export function createLruCache<V>(settings: LruSettings): LruCache<V> {
  const maxEntries = Math.max(1, Math.floor(settings.maxEntries));
  const { ttlMs } = settings;
  const now = settings.now ?? Date.now;
  const entries = new Map<string, Entry<V>>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
