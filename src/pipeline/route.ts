/**
 * The semantic router: classifies a query as `retrieval` (look something up), `relational`
 * (how things connect), `synthesis` (summarise or compare many sources) or `hybrid` (several
 * of these at once), and maps the intent to a retrieval strategy (seed 000's RoutingConfig).
 *
 * Two signals vote: keyword rules (cue phrases such as "related to", "summarize", "compare")
 * and the nearest labelled example questions under the configured embedder (embedded once,
 * lazily, per embedder). A per-request `searchDepth` then makes the strategy shallower or
 * deeper. Small talk is decided before routing (see `turn/small-talk.ts`).
 */
import { ValidationError } from '../errors/index.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { EmbeddingCache } from './embedding-cache.js';
import type { MetadataFilter } from '../ports/common.js';
import type { FusionWeights, RetrievalOptions } from './retrieve/options.js';
import {
  cosine,
  decideIntent,
  DEFAULT_ROUTE_EXAMPLES,
  ruleScores,
  type RouteExample,
} from './route/intent.js';
import {
  applyGraphSwitches,
  applySearchDepth,
  checkStrategy,
  DEFAULT_STRATEGIES,
  INTENTS,
  type Intent,
  type RetrievalStrategy,
  type RoutingStrategies,
  type SearchDepth,
} from './route/strategies.js';

export type { RetrievalStrategy } from './route/strategies.js';

/** The routing decision: what the `route` event reports. */
export interface RouteDecision {
  /** The intent chosen. */
  readonly intent: Intent;
  /** How clearly it won, in [0, 1]. */
  readonly confidence: number;
  /** The strategy to retrieve with (after the `searchDepth` override). */
  readonly strategy: RetrievalStrategy;
  /** The search depth applied. */
  readonly searchDepth: SearchDepth;
}

/** Settings of {@link createRouter}. */
export interface RouterSettings {
  /** Embeds the query and the examples; the engine's embedder. */
  readonly embedder: EmbeddingProvider;
  /** Query-embedding cache shared with retrieval (so the query is embedded once). */
  readonly embeddingCache?: EmbeddingCache | undefined;
  /** Strategies per intent, merged over `DEFAULT_STRATEGIES`. */
  readonly strategies?: Partial<Record<Intent, Partial<RetrievalStrategy>>> | undefined;
  /** Labelled examples (default `DEFAULT_ROUTE_EXAMPLES`); an empty list uses the rules only. */
  readonly examples?: readonly RouteExample[] | undefined;
  /** Weight of the rules against the examples' vote, in [0, 1] (default 0.6). */
  readonly ruleWeight?: number | undefined;
  /** Examples that vote (default 3). */
  readonly neighbors?: number | undefined;
}

/** Options of one routing call. */
export interface RouteOptions {
  /** Override of how hard to search (default `medium`: the route's own strategy). */
  readonly searchDepth?: SearchDepth | undefined;
  /** Cancels embedding the query. */
  readonly signal?: AbortSignal | undefined;
}

/** Classifies queries into intents and strategies. */
export interface Router {
  /** The strategies in use. */
  readonly strategies: RoutingStrategies;
  /** Routes one query. */
  route(query: string, options?: RouteOptions): Promise<RouteDecision>;
}

/** A router over the configured embedder; examples are embedded on the first call. */
export function createRouter(settings: RouterSettings): Router {
  const strategies = Object.fromEntries(
    INTENTS.map((intent) => {
      const strategy = { ...DEFAULT_STRATEGIES[intent], ...settings.strategies?.[intent] };
      checkStrategy(strategy, `routing.strategies.${intent}`);
      return [intent, strategy];
    }),
  ) as Record<Intent, RetrievalStrategy>;
  const examples = settings.examples ?? DEFAULT_ROUTE_EXAMPLES;
  const ruleWeight = settings.ruleWeight ?? 0.6;
  if (!(ruleWeight >= 0 && ruleWeight <= 1)) {
    throw new ValidationError('ruleWeight must be in [0, 1]', [
      { path: 'ruleWeight', message: 'must be in [0, 1]' },
    ]);
  }
  const neighbors = Math.max(1, settings.neighbors ?? 3);
  const { embedder, embeddingCache } = settings;
  let exampleVectors: Promise<Float32Array[]> | null = null;

  const embedQuery = async (query: string, signal?: AbortSignal): Promise<Float32Array> => {
    const cached = embeddingCache?.get(embedder.id, query);
    if (cached !== undefined) return cached;
    const [vector] = await embedder.embed([query], { signal });
    if (vector === undefined) throw new Error(`Embedder '${embedder.name}' returned no vector`);
    embeddingCache?.set(embedder.id, query, vector);
    return vector;
  };

  const vote = async (
    query: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<Exclude<Intent, 'hybrid'>, number> | null> => {
    if (examples.length === 0) return null;
    exampleVectors ??= embedder.embed(
      examples.map((example) => example.text),
      { signal },
    );
    let vectors: Float32Array[];
    try {
      vectors = await exampleVectors;
    } catch (error) {
      exampleVectors = null; // retry on the next call
      throw error;
    }
    const queryVector = await embedQuery(query, signal);
    const nearest = examples
      .map((example, index) => ({ example, similarity: cosine(queryVector, vectors[index]!) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, neighbors);
    const votes = { retrieval: 0, relational: 0, synthesis: 0 };
    const total = nearest.reduce((sum, { similarity }) => sum + Math.max(0, similarity), 0);
    if (total <= 0) return null;
    for (const { example, similarity } of nearest) {
      votes[example.intent] += Math.max(0, similarity) / total;
    }
    return votes;
  };

  return {
    strategies,
    async route(query, options = {}) {
      if (typeof query !== 'string' || query.trim().length === 0) {
        throw new ValidationError('query must be a non-empty string', [
          { path: 'query', message: 'must be a non-empty string' },
        ]);
      }
      const searchDepth = options.searchDepth ?? 'medium';
      if (!['shallow', 'medium', 'deep'].includes(searchDepth)) {
        throw new ValidationError("searchDepth must be 'shallow', 'medium' or 'deep'", [
          { path: 'searchDepth', message: "must be 'shallow', 'medium' or 'deep'" },
        ]);
      }
      let votes: Record<Exclude<Intent, 'hybrid'>, number> | null = null;
      try {
        votes = await vote(query, options.signal);
      } catch (error) {
        // An embedder failure leaves the rules to decide; aborting still aborts.
        if (options.signal?.aborted) throw error;
      }
      const { intent, confidence } = decideIntent(ruleScores(query), votes, ruleWeight);
      return {
        intent,
        confidence: Math.round(confidence * 1000) / 1000,
        strategy: applySearchDepth(strategies[intent], searchDepth),
        searchDepth,
      };
    },
  };
}

/**
 * The `retrieval` settings the route stage reads (the engine's resolved `retrieval` config
 * section fits).
 */
export interface RouteRetrievalSettings {
  /** Sources per answer when routing is off. */
  readonly topK: number;
  /** Adaptive k's ceiling when routing is off. */
  readonly maxK: number;
  /** Candidates asked of each search before fusion (the route's apply when higher). */
  readonly candidates: number;
  /** Sources scoring below this are dropped (the route's apply when higher). */
  readonly threshold: number;
  /** Weights of the vector and keyword lists in reciprocal-rank fusion. */
  readonly weights: Pick<FusionWeights, 'vector' | 'keyword'>;
  /** Reciprocal-rank-fusion constant. */
  readonly rrfK: number;
  /** Adaptive k widens when the top scores lie within this spread. */
  readonly widenSpread: number;
  /** Cosine range mapped to relevance [0, 1]; default: the embedder's `similarityRange`. */
  readonly cosineRange?: readonly [number, number] | undefined;
}

/** The `graph` settings the route stage reads. */
export interface RouteGraphSettings {
  /** Off: no route expands through the graph or reranks over it. */
  readonly enabled: boolean;
  /** Weight of score propagation over graph neighbours in the ranking. */
  readonly rerankWeight: number;
}

/** The `routing` settings the route stage reads. */
export interface RouteRoutingSettings {
  /** Off: every question uses the `retrieval` strategy. */
  readonly enabled: boolean;
}

/** The engine settings the route stage reads (the engine's resolved config fits). */
export interface RouteConfig {
  /** Tenant scope of every store call. */
  readonly namespace: string;
  /** How sources are found. */
  readonly retrieval: RouteRetrievalSettings;
  /** The knowledge graph. */
  readonly graph: RouteGraphSettings;
  /** Intent routing. */
  readonly routing: RouteRoutingSettings;
}

/** Retrieval options from the config, for a turn or `engine.search`. */
export function retrievalOptions(
  runtime: {
    readonly config: Pick<RouteConfig, 'namespace' | 'retrieval' | 'graph'>;
    readonly embedder: EmbeddingProvider;
  },
  request: {
    readonly k: number;
    readonly maxK: number;
    readonly strategy: RetrievalStrategy;
    readonly filter?: MetadataFilter | undefined;
    /** The session's per-chunk threshold; the engine's and the route's apply when higher. */
    readonly threshold?: number | undefined;
    readonly signal?: AbortSignal | undefined;
  },
): RetrievalOptions {
  const { retrieval, namespace, graph } = runtime.config;
  const { strategy } = request;
  return {
    namespace,
    k: request.k,
    maxK: Math.max(request.k, request.maxK),
    candidates: Math.max(retrieval.candidates, strategy.candidates, request.maxK),
    threshold: Math.max(retrieval.threshold, strategy.threshold, request.threshold ?? 0),
    filter: request.filter,
    weights: { ...retrieval.weights, graph: strategy.fusion.graph },
    rrfK: retrieval.rrfK,
    widenSpread: retrieval.widenSpread,
    cosineRange: retrieval.cosineRange ?? runtime.embedder.similarityRange,
    graph: graph.enabled ? strategy.graph : null,
    graphRerank: graph.enabled && strategy.graphRerank,
    graphRerankWeight: graph.rerankWeight,
    rerank: strategy.rerank,
    signal: request.signal,
  };
}

/** The route of a question and how much to retrieve for it. */
export interface RetrievalPlan {
  /** The intent (or `retrieval` when routing is off). */
  readonly route: string;
  /** How clearly the intent won. */
  readonly confidence: number;
  /** The strategy of the route. */
  readonly strategy: RetrievalStrategy;
  /** Sources to return. */
  readonly k: number;
  /** Adaptive k's ceiling. */
  readonly maxK: number;
}

/**
 * Routes a question (intent → strategy, `searchDepth` override) and settles k: a request's
 * `topK` is exact, else the session's, else the config's `topK` and `maxK` when routing is
 * off, else the strategy's.
 */
export async function planRetrieval(
  runtime: {
    readonly config: {
      readonly routing: RouteRoutingSettings;
      readonly retrieval: Pick<RouteRetrievalSettings, 'topK' | 'maxK'>;
    };
    readonly router: Router;
  },
  query: string,
  request: {
    readonly topK?: number | undefined;
    readonly sessionTopK?: number | undefined;
    readonly searchDepth?: SearchDepth | undefined;
    /** Seed 000's switches, mapped onto the strategy (see {@link applyGraphSwitches}). */
    readonly enableGNN?: boolean | undefined;
    readonly enableGraphTraversal?: boolean | undefined;
    readonly signal?: AbortSignal | undefined;
  },
): Promise<RetrievalPlan> {
  const { config } = runtime;
  const decision = config.routing.enabled
    ? await runtime.router.route(query, {
        searchDepth: request.searchDepth,
        signal: request.signal,
      })
    : undefined;
  const strategy = applyGraphSwitches(
    decision?.strategy ??
      applySearchDepth(runtime.router.strategies.retrieval, request.searchDepth ?? 'medium'),
    request,
  );
  // An explicit topK — the request's or the session's — is exact: adaptive widening never
  // adds sources to it (seed 003: a session with topK 1 gets one source).
  const fixed = request.topK ?? request.sessionTopK;
  const k = fixed ?? (decision ? strategy.k : config.retrieval.topK);
  const maxK = fixed !== undefined ? k : decision ? strategy.maxK : config.retrieval.maxK;
  return {
    route: decision?.intent ?? 'retrieval',
    confidence: decision?.confidence ?? 1,
    strategy,
    k,
    maxK: Math.max(k, maxK),
  };
}
