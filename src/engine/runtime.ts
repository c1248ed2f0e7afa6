/**
 * What an engine is built from: its adapters (in-memory and offline defaults for those not
 * configured) behind the resilience layer, the query caches, the learned boost and the graph
 * indexer, and the turn runtime (models, tokenizer, recall), loaded lazily on the first turn.
 */
import type { ResolvedConfig } from '../config.js';
import type { EngineEmitter } from '../events.js';
import { createExtractiveProvider } from '../adapters/extractive/provider.js';
import { createHashingEmbedder } from '../adapters/hashing/embedder.js';
import { createMemoryGraphStore } from '../adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../adapters/memory/keyword-index.js';
import { createMemoryLearningSink } from '../adapters/memory/learning-sink.js';
import { createMemoryRateLimiter } from '../adapters/memory/rate-limiter.js';
import { createMemorySessionStore } from '../adapters/memory/session-store.js';
import { createMemoryVectorStore } from '../adapters/memory/vector-store.js';
import { withCountCache, type CountCachedTokenizer } from '../adapters/tokenizer/count-cache.js';
import { ConfigError } from '../errors/index.js';
import { createEstimateTokenizer } from '../adapters/tokenizer/estimate.js';
import { createGptTokenizer } from '../adapters/tokenizer/gpt-tokenizer.js';
import { createGraphIndexer } from '../ingest/graph.js';
import { createLearnedBoost } from '../learning/learned-boost.js';
import { createEmbeddingCache } from '../pipeline/embedding-cache.js';
import { createRecall } from '../pipeline/recall.js';
import type { SearchCache } from '../pipeline/retrieve.js';
import { createRouter } from '../pipeline/route.js';
import { providerRateLimitEvent, retryEvent } from '../pipeline/turn/observe.js';
import type { LLMProvider } from '../ports/llm-provider.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import {
  createResilientEmbedder,
  createResilientLLM,
  type ResilienceBreakerEvent,
} from '../resilience/resilient-llm.js';
import type { EngineRuntime } from '../runtime.js';
import { createLruCache } from '../util/lru.js';
import { forgetTextAnalyses } from '../util/second-sight.js';

/**
 * The model of an engine: the configured one, else the offline extractive model. The engine
 * never reads the environment nor picks a remote provider by itself (opt in with `llm`, e.g.
 * from `cortexis/providers`), so the provider adapters stay out of the core entry.
 */
function resolveModel(configured: LLMProvider | undefined): LLMProvider {
  return configured ?? createExtractiveProvider();
}

/** An engine's adapters, caches, learned boost and graph indexer, from its resolved config. */
export function createEngineParts(resolved: ResolvedConfig, events: EngineEmitter) {
  // Every model and embedder call goes through timeouts, retries and a circuit breaker.
  const onBreaker = (event: ResilienceBreakerEvent): void =>
    events.emit('breaker', {
      provider: event.provider,
      key: event.key,
      state: event.state,
      previous: event.previous,
      failures: event.failures,
      retryAfterMs: event.retryAfterMs,
    });
  const embedder = createResilientEmbedder(
    resolved.embedder ?? createHashingEmbedder(),
    resolved.resilience,
    {
      onBreaker,
      onRetry: (event) => events.emit('retry', retryEvent(null, event)),
      onRateLimit: (event) => events.emit('rateLimit', providerRateLimitEvent(null, event)),
    },
  );
  const embeddingCache = createEmbeddingCache();
  const { cache: searchCacheSettings } = resolved.retrieval;
  const searchCache: SearchCache | undefined =
    searchCacheSettings.maxEntries > 0 && searchCacheSettings.ttlMs > 0
      ? createLruCache({
          maxEntries: searchCacheSettings.maxEntries,
          ttlMs: searchCacheSettings.ttlMs,
        })
      : undefined;
  // What changes the index or deletes text empties the caches keyed by query text
  // (and the process-wide analyses of chunk texts, so none of a deleted text outlives it).
  const clearQueryCaches = (): void => {
    embeddingCache.clear();
    searchCache?.clear();
    forgetTextAnalyses();
  };
  const learnedBoost = resolved.learning.learnedBoost ? createLearnedBoost() : undefined;
  const graphStore = resolved.graph.enabled
    ? (resolved.graphStore ?? createMemoryGraphStore())
    : undefined;
  const graphIndexer = graphStore
    ? createGraphIndexer({
        graphStore,
        maxTermsPerChunk: resolved.graph.maxTermsPerChunk,
        maxChunksPerTerm: resolved.graph.maxChunksPerTerm,
        termCharacters: resolved.graph.termCharacters,
      })
    : undefined;
  const base = {
    config: resolved,
    events,
    vectorStore: resolved.vectorStore ?? createMemoryVectorStore(),
    keywordIndex:
      resolved.keywordIndex ?? createMemoryKeywordIndex({ language: resolved.text.language }),
    embedder,
    embeddingCache,
    searchCache,
    graphStore,
    reranker: resolved.reranker,
    router: createRouter({ embedder, embeddingCache, ruleWeight: resolved.routing.ruleWeight }),
    learnedBoost: learnedBoost
      ? (chunkId: string, vector: Float32Array) => learnedBoost.boost(chunkId, vector)
      : undefined,
    sessionStore: resolved.sessionStore ?? createMemorySessionStore(),
    learningSink: resolved.learningSink ?? createMemoryLearningSink(),
    tracer: resolved.tracer,
    rateLimiter: resolved.rateLimit.enabled
      ? (resolved.rateLimiter ?? createMemoryRateLimiter(resolved.rateLimit))
      : undefined,
  };
  return {
    onBreaker,
    embedder,
    embeddingCache,
    clearQueryCaches,
    learnedBoost,
    graphStore,
    graphIndexer,
    base,
  };
}

/** What `createEngineParts` built. */
export type EngineParts = ReturnType<typeof createEngineParts>;

/** The engine's own work a turn may call: ending a session, scheduling work after a turn. */
export type TurnHooks = Pick<EngineRuntime, 'endSession' | 'afterTurn'>;

/**
 * The default tokenizer: cl100k_base, loaded from the package's `encodings/` folder. Where that
 * table cannot be loaded (a single-file bundle without the folder, and no `tokenizer` given),
 * the engine reports the `ConfigError` as an `error` event and counts with an estimate (4 bytes
 * of UTF-8 per token) instead of failing every ingest and turn.
 */
function defaultTokenizer(onFallback: (error: unknown) => void): Promise<Tokenizer> {
  return createGptTokenizer().catch((error: unknown) => {
    if (!ConfigError.isInstance(error)) throw error;
    onFallback(error);
    return createEstimateTokenizer();
  });
}

/**
 * The tokenizer and the turn runtime, each loaded once on first use; the token-count cache
 * of the turns (absent before the first turn).
 */
export function createLazyRuntime(
  resolved: ResolvedConfig,
  events: EngineEmitter,
  parts: EngineParts,
  hooks: TurnHooks,
) {
  const { base, embedder, embeddingCache, onBreaker } = parts;
  const { endSession, afterTurn } = hooks;
  // The tokenizer loads lazily so that importing cortexis stays cheap. Turns count the same
  // system prompt and popular chunks again and again, so they get a count cache; ingestion
  // counts each text once and uses the tokenizer as it is.
  let tokenizer: Promise<Tokenizer> | undefined;
  const loadTokenizer = (): Promise<Tokenizer> =>
    (tokenizer ??= resolved.tokenizer
      ? Promise.resolve(resolved.tokenizer)
      : defaultTokenizer((error) => events.emit('error', { where: 'tokenizer', error })));
  let turnRuntime: Promise<EngineRuntime> | undefined;
  let countCache: CountCachedTokenizer | undefined;
  const runtime = (): Promise<EngineRuntime> =>
    (turnRuntime ??= Promise.all([loadTokenizer(), resolveModel(resolved.llm)]).then(
      ([loaded, model]) => {
        const counted = (countCache = withCountCache(loaded));
        return {
          ...base,
          llm: createResilientLLM(model, resolved.resilience, { onBreaker }),
          models: new Map(
            Object.entries(resolved.models ?? {}).map(([name, provider]) => [
              name,
              createResilientLLM(provider, resolved.resilience, { onBreaker }),
            ]),
          ),
          tokenizer: counted,
          recall: createRecall(
            {
              vectorStore: base.vectorStore,
              embedder,
              tokenizer: counted,
              namespace: resolved.namespace,
              embeddingCache,
              onError: (error, where) => events.emit('error', { where, error }),
            },
            resolved.recall,
          ),
          endSession,
          afterTurn,
        };
      },
    ));
  return {
    loadTokenizer,
    runtime,
    /** The turn runtime once its loading started; undefined before the first turn. */
    loaded: (): Promise<EngineRuntime> | undefined => turnRuntime,
    /** Empties the turns' token-count cache. */
    clearCountCache: (): void => countCache?.clear(),
  };
}
