/**
 * A small LRU cache of query embeddings with a time-to-live, keyed by embedder id and text,
 * so repeated or rephrased-back questions skip the embedder.
 */
import { createLruCache } from '../util/lru.js';

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

function cacheKey(embedderId: string, text: string): string {
  return `${embedderId}\u0000${text}`;
}

/** An LRU embedding cache with a per-entry TTL. */
export function createEmbeddingCache(settings: EmbeddingCacheSettings = {}): EmbeddingCache {
  const entries = createLruCache<Float32Array>({
    maxEntries: settings.maxEntries ?? 100,
    ttlMs: settings.ttlMs ?? 300_000,
    now: settings.now,
  });
  return {
    get: (embedderId, text) => entries.get(cacheKey(embedderId, text)),
    set: (embedderId, text, vector) => entries.set(cacheKey(embedderId, text), vector),
    clear: () => entries.clear(),
    get size() {
      return entries.size;
    },
  };
}
