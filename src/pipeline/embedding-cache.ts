/**
 * A small LRU cache of query embeddings with a time-to-live, keyed by embedder id and text,
 * so repeated or rephrased-back questions skip the embedder.
 */

/** Cache of embeddings keyed by embedder id and text. */
export interface EmbeddingCache {
  /** The cached vector, or undefined when absent or expired (a hit refreshes its recency). */
  get(embedderId: string, text: string): Float32Array | undefined;
  /** Stores a vector, evicting the least recently used entry when full. */
  set(embedderId: string, text: string, vector: Float32Array): void;
  /** Removes every entry. */
  clear(): void;
  /** Number of entries held (expired ones included until touched or evicted). */
  readonly size: number;
}

/** Settings of the LRU embedding cache. */
export interface EmbeddingCacheSettings {
  /** Most entries kept (default 100). */
  readonly maxEntries?: number;
  /** How long an entry stays valid, ms (default 300 000 = 5 minutes). */
  readonly ttlMs?: number;
  /** Clock in ms, injectable for tests (default `Date.now`). */
  readonly now?: () => number;
}

interface Entry {
  readonly vector: Float32Array;
  readonly expiresAt: number;
}

function cacheKey(embedderId: string, text: string): string {
  return `${embedderId}\u0000${text}`;
}

/** An LRU embedding cache (a `Map` in recency order) with a per-entry TTL. */
export function createEmbeddingCache(settings: EmbeddingCacheSettings = {}): EmbeddingCache {
  const maxEntries = Math.max(1, Math.floor(settings.maxEntries ?? 100));
  const ttlMs = settings.ttlMs ?? 300_000;
  const now = settings.now ?? Date.now;
  const entries = new Map<string, Entry>();

  return {
    get(embedderId, text) {
      const key = cacheKey(embedderId, text);
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(key, entry);
      return entry.vector;
    },
    set(embedderId, text, vector) {
      const key = cacheKey(embedderId, text);
      entries.delete(key);
      entries.set(key, { vector, expiresAt: now() + ttlMs });
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
