/**
 * The runtime of an engine: its resolved config and one adapter per port, as the engine builds
 * it (`src/engine/runtime.ts`) and the turn orchestrator (`src/pipeline/turn.ts`) reads it.
 * Types only; stages never import it (they take the narrower dependencies they use).
 */
import type { ResolvedConfig } from './config.js';
import type { EngineEmitter } from './events.js';
import type { SessionRecord } from './ports/chat-records.js';
import type { EmbeddingProvider } from './ports/embedding-provider.js';
import type { GraphStore } from './ports/graph-store.js';
import type { KeywordIndex } from './ports/keyword-index.js';
import type { LearningSink } from './ports/learning-sink.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Reranker } from './ports/reranker.js';
import type { SessionStore } from './ports/session-store.js';
import type { Tokenizer } from './ports/tokenizer.js';
import type { Tracer } from './ports/tracer.js';
import type { VectorStore } from './ports/vector-store.js';
import type { EmbeddingCache } from './pipeline/embedding-cache.js';
import type { Recall } from './pipeline/recall.js';
import type { SearchCache } from './pipeline/retrieve.js';
import type { Router } from './pipeline/route.js';
import type { ResilientLLM } from './resilience/resilient-llm.js';

/** Everything a turn needs: the resolved config and one adapter per port. */
export interface EngineRuntime {
  readonly config: ResolvedConfig;
  readonly vectorStore: VectorStore;
  readonly keywordIndex: KeywordIndex;
  readonly embedder: EmbeddingProvider;
  readonly embeddingCache: EmbeddingCache;
  /** Search-results cache (`retrieval.cache`); absent when turned off. */
  readonly searchCache?: SearchCache | undefined;
  /** The model behind timeouts, retries and the circuit breaker. */
  readonly llm: ResilientLLM;
  /** The engine's named models (`config.models`), for sessions that choose one. */
  readonly models: ReadonlyMap<string, ResilientLLM>;
  /** Counts turns per key when rate limiting is enabled. */
  readonly rateLimiter: RateLimiter | undefined;
  /** The knowledge graph (expansion and rerank). */
  readonly graphStore: GraphStore | undefined;
  /** Optional reranker for routes that ask for one. */
  readonly reranker: Reranker | undefined;
  /** Classifies questions into intents and their strategies. */
  readonly router: Router;
  /** Semantic recall of the same user's earlier messages. */
  readonly recall: Recall;
  readonly sessionStore: SessionStore;
  readonly learningSink: LearningSink;
  readonly tokenizer: Tokenizer;
  readonly events: EngineEmitter;
  /** Receives a span per turn and per stage; undefined when tracing is off. */
  readonly tracer: Tracer | undefined;
  /** Ends a session (quit word); shared with `engine.endSession`. */
  readonly endSession: (session: SessionRecord, reason: 'quit' | 'ended') => Promise<void>;
  /** Schedules work after the current turn of a session, before its next turn. */
  readonly afterTurn: (sessionId: string, task: () => Promise<void>) => void;
}
