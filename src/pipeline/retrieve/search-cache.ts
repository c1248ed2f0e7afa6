/**
 * The search-results cache of the retrieval stage (seed 003): what it holds per query and the
 * key of a first-stage search.
 */
import type { KeywordMatch } from '../../ports/keyword-index.js';
import type { VectorMatch } from '../../ports/vector-store.js';
import type { LruCache } from '../../util/lru.js';
import type { RetrievalOptions } from './options.js';

/** What the search-results cache holds per query: both candidate lists and the query vector. */
export interface CachedSearch {
  readonly vectorMatches: readonly VectorMatch[];
  readonly keywordMatches: readonly KeywordMatch[];
  readonly vector: Float32Array | null;
}

/** The search-results cache: first-stage candidate lists by {@link searchCacheKey}. */
export type SearchCache = LruCache<CachedSearch>;

/**
 * The cache key of a first-stage search: everything the two candidate lists depend on
 * (namespace, the query text, the list length, the filter, which searches run). Graph
 * expansion, the learned boost and the reranker run after the cache, so feedback never
 * makes an entry stale; only a change of the index does.
 */
export function searchCacheKey(
  query: string,
  options: Pick<RetrievalOptions, 'namespace' | 'candidates' | 'filter'>,
  searches: { readonly vector: boolean; readonly keyword: boolean; readonly embed: boolean },
): string {
  return JSON.stringify([
    options.namespace,
    options.candidates,
    searches.vector,
    searches.keyword,
    searches.embed,
    options.filter ?? null,
    query,
  ]);
}
