import { resolveConfig, type EngineConfig, type ResolvedConfig } from './config.js';
import { ConflictError, NotFoundError, ValidationError } from './errors/index.js';
import { EngineEmitter, type EngineEventName, type EngineListener } from './events.js';
import { createHashingEmbedder } from './adapters/hashing/embedder.js';
import { createExtractiveProvider } from './adapters/extractive/provider.js';
import { createMemoryKeywordIndex } from './adapters/memory/keyword-index.js';
import { createMemoryLearningSink } from './adapters/memory/learning-sink.js';
import { createMemorySessionStore } from './adapters/memory/session-store.js';
import { createMemoryVectorStore } from './adapters/memory/vector-store.js';
import { withCountCache, type CountCachedTokenizer } from './adapters/tokenizer/count-cache.js';
import { createGptTokenizer } from './adapters/tokenizer/gpt-tokenizer.js';
import { deleteDocuments, ingestDocuments } from './ingest/ingest.js';
import { createMemoryRateLimiter } from './adapters/memory/rate-limiter.js';
import { createMemoryGraphStore } from './adapters/memory/graph-store.js';
import { createGraphIndexer } from './ingest/graph.js';
import { documentNodeId } from './query/graph-model.js';
import { createEmbeddingCache } from './pipeline/embedding-cache.js';
import { createRecall } from './pipeline/recall.js';
import { createRouter, planRetrieval, retrievalOptions } from './pipeline/route.js';
import { sessionQuality } from './pipeline/learn.js';
import { calculateFeedbackReward } from './learning/feedback.js';
import { createLearnedBoost, feedbackSignals } from './learning/learned-boost.js';
import {
  createResilientEmbedder,
  createResilientLLM,
  type ResilienceBreakerEvent,
} from './resilience/resilient-llm.js';
import { retrieve, type SearchCache } from './pipeline/retrieve.js';
import { toSearchHits } from './pipeline/sources.js';
import {
  loadOwnedSession,
  providerRateLimitEvent,
  retryEvent,
  runTurn,
  type EngineRuntime,
} from './pipeline/turn.js';
import {
  createSessionSchema,
  documentIdsSchema,
  feedbackSchema,
  historySchema,
  ingestOptionsSchema,
  listSessionsSchema,
  parseInput,
  queryTextSchema,
  findPatternsOptionsSchema,
  searchOptionsSchema,
  sessionRefSchema,
  type IngestProgress,
} from './validate.js';
import type {
  FeedbackRecord,
  MessageRecord,
  SessionRecord,
  Source,
  TrajectoryRecord,
} from './ports/chat-records.js';
import type { SessionPage } from './ports/session-store.js';
import type { LLMProvider } from './ports/llm-provider.js';
import type { Tokenizer } from './ports/tokenizer.js';
import { ChatStream } from './stream.js';
import type {
  ChatRequest,
  ChatResponse,
  CreateSessionParams,
  FeedbackParams,
  HistoryPage,
  HistoryParams,
  IngestDocument,
  IngestResult,
  SearchHit,
  FindPatternsOptions,
  SearchOptions,
} from './types.js';
import { isoNow, ulid } from './util/ids.js';
import { KeyedLock } from './util/keyed-lock.js';
import { createLruCache } from './util/lru.js';
import { attachLogger } from './logger.js';
import { TURN_SPAN, traceEngineCalls, traceOperation } from './util/tracing.js';
import { createFeedbackSync } from './learning/feedback-sync.js';

/** Options of `engine.ingest`. */
export interface IngestOptions {
  /** Called after each group of documents is indexed. */
  readonly onProgress?: ((progress: IngestProgress) => void) | undefined;
  /** Cancels the ingestion; documents already indexed stay. */
  readonly signal?: AbortSignal | undefined;
}

/** A retrieval-augmented chat engine. Create one with `createChatEngine(config)`. */
export interface ChatEngine {
  /** The configuration with every default applied. */
  readonly config: ResolvedConfig;
  /** Chunks, embeds and indexes documents; idempotent per document id. */
  ingest(docs: readonly IngestDocument[], options?: IngestOptions): Promise<IngestResult>;
  /** Removes documents from every index; returns how many chunks were removed. */
  deleteDocuments(documentIds: readonly string[]): Promise<number>;
  /** Starts a conversation owned by `userId`. */
  createSession(params: CreateSessionParams): Promise<SessionRecord>;
  /** A session of the user (`NotFoundError` for anyone else's). */
  getSession(params: { sessionId: string; userId: string }): Promise<SessionRecord>;
  /** The user's sessions, newest first. */
  listSessions(params: { userId: string; limit?: number; cursor?: string }): Promise<SessionPage>;
  /** Ends a session (its learning trajectory is completed); further messages are refused. */
  endSession(params: { sessionId: string; userId: string }): Promise<SessionRecord>;
  /** Archives a session: kept with its history, listed, but closed to new messages. */
  archiveSession(params: { sessionId: string; userId: string }): Promise<SessionRecord>;
  /**
   * Deletes a session everywhere: its messages, its recall records (even those still being
   * embedded) and its learning records (trajectories, steps, feedback).
   */
  deleteSession(params: { sessionId: string; userId: string }): Promise<void>;
  /** Runs one turn and returns the whole answer. */
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** Runs one turn, streaming its parts. */
  stream(request: ChatRequest): ChatStream;
  /**
   * The ranked sources a turn would use, without generation. Each hit is a {@link Source}
   * (labelled S1..Sn, with its chunk metadata and a display `snippet`) plus the whole chunk
   * `text`, ready to hand to another framework's prompt.
   *
   * @example
   * ```ts
   * const hits = await engine.search('refund policy', { k: 3, filter: { lang: 'en' } });
   * const context = hits.map((hit) => `[${hit.id}] ${hit.title ?? ''}\n${hit.text}`).join('\n\n');
   * ```
   */
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /**
   * Past learning trajectories like a query (seed 000 `findPatterns`): ended conversations
   * whose first question shares the most content terms with it, weighted by their quality,
   * best first. Pass `userId` to see only that user's.
   *
   * @example
   * ```ts
   * const patterns = await engine.findPatterns('refund policy', { k: 3, userId: 'user-42' });
   * ```
   */
  findPatterns(query: string, options?: FindPatternsOptions): Promise<TrajectoryRecord[]>;
  /** A page of a session's stored messages, oldest first. */
  history(params: HistoryParams): Promise<HistoryPage>;
  /**
   * Records a user's feedback on an answer (only the session owner may give it): the reward
   * replaces the turn's confidence in its learning step, and the rated sources get a learned
   * boost for similar questions. Returns the stored feedback.
   */
  feedback(params: FeedbackParams): Promise<FeedbackRecord>;
  /**
   * Resolves when background work has finished: compaction after turns, the embedding of
   * stored messages for recall and a pull of feedback from the learning sink. Call it before
   * shutting down, or in tests.
   */
  flush(): Promise<void>;
  /** Adds an event listener; returns a function that removes it. */
  on<E extends EngineEventName>(event: E, listener: EngineListener<E>): () => void;
}

/**
 * The model of an engine: the configured one, else the offline extractive model. The engine
 * never reads the environment nor picks a remote provider by itself (opt in with `llm`, e.g.
 * from `cortexis/providers`), so the provider adapters stay out of the core entry.
 */
function resolveModel(configured: LLMProvider | undefined): LLMProvider {
  return configured ?? createExtractiveProvider();
}

/**
 * Creates a chat engine. With no arguments everything is in memory and offline: hashing
 * embedder, BM25 keyword index, exact vector store, and the extractive model.
 * Throws `ConfigError` naming every invalid field.
 */
export function createChatEngine(config?: EngineConfig): ChatEngine {
  const resolved = resolveConfig(config);
  const events = new EngineEmitter();
  if (resolved.logger) attachLogger(events, resolved.logger);
  const lock = new KeyedLock();
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
  // What changes the index or deletes text empties the caches keyed by query text.
  const clearQueryCaches = (): void => {
    embeddingCache.clear();
    searchCache?.clear();
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

  /** Feeds one feedback record into the learned boost; returns how many chunks it touched. */
  const learnFromFeedback = async (
    record: FeedbackRecord,
    message?: MessageRecord | null,
  ): Promise<number> => {
    if (!learnedBoost) return 0;
    const rated = message ?? (await base.sessionStore.getMessage(record.messageId));
    const question = rated?.replyTo ? await base.sessionStore.getMessage(rated.replyTo) : null;
    if (!rated || !question) return 0;
    const [vector] = await embedder.embed([question.content]);
    if (!vector) return 0;
    let touched = 0;
    for (const { chunkId, signal } of feedbackSignals(
      rated.sources,
      record.sourceHelpfulness,
      record.rating,
    )) {
      if (signal === 0) continue;
      learnedBoost.record({
        queryVector: vector,
        chunkId,
        signal,
        at: Date.parse(record.createdAt),
      });
      touched++;
    }
    return touched;
  };

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
  // Work after a turn (compaction).
  const afterTurn = (sessionId: string, task: () => Promise<void>): void =>
    inBackground('after-turn', task, sessionId);

  // Stored feedback (a SQLite or Postgres sink that outlives the process, or that other
  // instances write to) builds the boost: everything at start, then what was recorded since,
  // pulled in the background by the first turn or search after each `syncIntervalMs`.
  const feedbackSync =
    learnedBoost && resolved.learning.replayFeedback
      ? createFeedbackSync({
          sink: base.learningSink,
          learn: (record) => learnFromFeedback(record),
          intervalMs: resolved.learning.syncIntervalMs,
          onError: (error) => events.emit('error', { where: 'learn', error }),
        })
      : undefined;
  if (feedbackSync) inBackground('learn', () => feedbackSync.pull());

  const endSession = async (session: SessionRecord, reason: 'quit' | 'ended'): Promise<void> => {
    const now = isoNow();
    await base.sessionStore.updateSession(session.id, {
      status: 'ended',
      endedAt: now,
      updatedAt: now,
    });
    const current = await base.sessionStore.getSession(session.id);
    const trajectoryId = current?.trajectoryId ?? session.trajectoryId;
    if (trajectoryId !== null) {
      try {
        const quality = await sessionQuality(base, session.id);
        await base.learningSink.endTrajectory(trajectoryId, {
          status: 'completed',
          quality,
          endedAt: now,
        });
      } catch (error) {
        events.emit('error', { where: 'learn', error });
      }
    }
    events.emit('session.ended', { sessionId: session.id, reason });
  };

  // The tokenizer loads lazily so that importing cortexis stays cheap. Turns count the same
  // system prompt and popular chunks again and again, so they get a count cache; ingestion
  // counts each text once and uses the tokenizer as it is.
  let tokenizer: Promise<Tokenizer> | undefined;
  const loadTokenizer = (): Promise<Tokenizer> =>
    (tokenizer ??= resolved.tokenizer ? Promise.resolve(resolved.tokenizer) : createGptTokenizer());
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

  // A session's records in the other stores (recall vectors, learning records) go with it.
  const purgeSession = async (sessionId: string): Promise<void> => {
    await (await runtime()).recall.forget(sessionId);
    await base.learningSink.deleteSession(sessionId);
  };
  // Sessions a store evicts on its own (`maxSessions`, `idleTtlMs`) are purged the same way in
  // the background, under the session's lock: after a turn still running on it.
  base.sessionStore.onEvict?.((sessionIds) => {
    for (const sessionId of sessionIds) {
      inBackground('evict', () => purgeSession(sessionId), sessionId);
    }
  });

  const ownedSession = async (params: unknown): Promise<SessionRecord> => {
    const ref = parseInput(sessionRefSchema, params, 'session reference');
    return loadOwnedSession(base.sessionStore, ref.sessionId, ref.userId);
  };

  // Turns on one session run one at a time, in call order; other sessions run in parallel.
  const serialized = <T>(request: ChatRequest, task: () => Promise<T>): Promise<T> => {
    const key = typeof request?.sessionId === 'string' ? request.sessionId : undefined;
    return key === undefined || request.mode === 'query' ? task() : lock.run(key, task);
  };

  const engine: ChatEngine = {
    config: resolved,

    async ingest(docs, options = {}) {
      const parsed = parseInput(ingestOptionsSchema, options, 'ingest options');
      const deps = { ...base, graphIndexer, tokenizer: await loadTokenizer() };
      const result = await ingestDocuments(deps, docs, {
        namespace: resolved.namespace,
        chunkSize: resolved.chunking.chunkSize,
        chunkOverlap: resolved.chunking.chunkOverlap,
        chunker: resolved.chunking.chunker,
        maxDocumentLength: resolved.limits.maxDocumentLength,
        onProgress: parsed.onProgress,
        signal: parsed.signal,
      });
      clearQueryCaches();
      events.emit('metrics', {
        turnId: null,
        phase: 'ingest',
        ms: result.durationMs,
        detail: { documents: result.documents, chunks: result.chunks },
      });
      return result;
    },

    async deleteDocuments(documentIds) {
      const ids = parseInput(documentIdsSchema, documentIds, 'document ids');
      const removed = await deleteDocuments(base, resolved.namespace, ids);
      await graphIndexer?.remove(resolved.namespace, ids);
      clearQueryCaches();
      return removed;
    },

    async createSession(params) {
      const input = parseInput(createSessionSchema, params, 'session parameters');
      const model = input.settings?.model;
      if (model !== undefined && !Object.hasOwn(resolved.models ?? {}, model)) {
        const known = Object.keys(resolved.models ?? {});
        const message = `names no model of the engine (known: ${known.join(', ') || 'none; pass config.models'})`;
        throw new ValidationError(`Invalid session parameters: settings.model: ${message}`, [
          { path: 'settings.model', message },
        ]);
      }
      const now = isoNow();
      const session: SessionRecord = {
        id: input.id ?? ulid(),
        userId: input.userId,
        title: input.title ?? null,
        status: 'active',
        createdAt: now,
        updatedAt: now,
        endedAt: null,
        trajectoryId: null,
        settings: input.settings ?? {},
        stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
        metadata: input.metadata ?? {},
      };
      await base.sessionStore.createSession(session);
      events.emit('session.created', { session });
      return session;
    },

    getSession: ownedSession,

    async listSessions(params) {
      const input = parseInput(listSessionsSchema, params, 'list parameters');
      return base.sessionStore.listSessions(input);
    },

    async endSession(params) {
      const session = await ownedSession(params);
      return lock.run(session.id, async () => {
        const current = await ownedSession(params);
        if (current.status !== 'active') {
          throw new ConflictError(`session '${current.id}' has already ended`);
        }
        await endSession(current, 'ended');
        return ownedSession(params);
      });
    },

    async archiveSession(params) {
      const session = await ownedSession(params);
      return lock.run(session.id, async () => {
        const current = await ownedSession(params);
        if (current.status === 'archived') {
          throw new ConflictError(`session '${current.id}' is already archived`);
        }
        if (current.status === 'active') await endSession(current, 'ended');
        const now = isoNow();
        await base.sessionStore.updateSession(current.id, { status: 'archived', updatedAt: now });
        return ownedSession(params);
      });
    },

    async deleteSession(params) {
      const session = await ownedSession(params);
      await lock.run(session.id, async () => {
        // The other stores first: if one fails, the session is still there to delete again.
        await purgeSession(session.id);
        if (!(await base.sessionStore.deleteSession(session.id))) {
          throw new NotFoundError('session', session.id);
        }
        // The query-embedding, search-results and token-count caches are keyed by raw text (questions and
        // messages): a deletion empties them (they refill from use). Evictions do not, or
        // churn would keep them empty.
        clearQueryCaches();
        countCache?.clear();
      });
    },

    // The turn span starts in the call itself, so the caller's current span is its parent.
    chat(request) {
      return traceOperation(resolved.tracer, TURN_SPAN, async (span) => {
        feedbackSync?.pullIfDue();
        const rt = await runtime();
        return serialized(request, () => runTurn(rt, request, false, () => undefined, span));
      });
    },

    stream(request) {
      return new ChatStream((sink) =>
        traceOperation(resolved.tracer, TURN_SPAN, async (span) => {
          feedbackSync?.pullIfDue();
          const rt = await runtime();
          return serialized(request, () => runTurn(rt, request, true, sink, span));
        }),
      );
    },

    async search(query, options = {}) {
      const input = parseInput(searchOptionsSchema, options, 'search options');
      const text = parseInput(queryTextSchema, query, 'search query');
      feedbackSync?.pullIfDue();
      const started = performance.now();
      const plan = await planRetrieval(base, text, {
        topK: input.k,
        searchDepth: input.searchDepth,
        signal: input.signal,
      });
      const result = await retrieve(
        text,
        base,
        retrievalOptions(base, {
          k: plan.k,
          maxK: plan.maxK,
          strategy: plan.strategy,
          filter: input.filter,
          signal: input.signal,
        }),
      );
      const hits = toSearchHits(result.chunks);
      events.emit('retrieval', {
        turnId: null,
        sessionId: null,
        query: text,
        ids: result.chunks.map((chunk) => chunk.chunkId),
        scores: result.chunks.map((chunk) => chunk.score),
        topScore: result.topScore,
        cacheHit: result.cacheHit,
        searchCacheHit: result.searchCacheHit,
        widened: result.widened,
        droppedForBudget: 0,
        durationMs: performance.now() - started,
      });
      return hits;
    },

    async findPatterns(query, options = {}) {
      const input = parseInput(findPatternsOptionsSchema, options, 'findPatterns options');
      const text = parseInput(queryTextSchema, query, 'findPatterns query');
      const { userId, k, signal } = input;
      return base.learningSink.findPatterns(text, k, {
        signal,
        ...(userId === undefined ? {} : { userId }),
      });
    },

    async feedback(params) {
      const input = parseInput(feedbackSchema, params, 'feedback');
      const message = await base.sessionStore.getMessage(input.messageId);
      // Another user's message is as unknown as a missing one.
      if (!message || message.userId !== input.userId || message.role !== 'assistant') {
        throw new NotFoundError('message', input.messageId);
      }
      const labels = new Set(message.sources.map((source) => source.id));
      for (const label of Object.keys(input.sourceHelpfulness ?? {})) {
        if (!labels.has(label)) {
          throw new ValidationError(
            `Invalid feedback: sourceHelpfulness.${label}: the message has no source '${label}'`,
            [
              {
                path: `sourceHelpfulness.${label}`,
                message: `the message has no source '${label}'`,
              },
            ],
          );
        }
      }
      const record: FeedbackRecord = {
        id: ulid(),
        messageId: message.id,
        sessionId: message.sessionId,
        userId: input.userId,
        rating: input.rating,
        sourceHelpfulness: input.sourceHelpfulness ?? null,
        comment: input.comment ?? null,
        markedAsFactual: input.markedAsFactual ?? null,
        correctedContent: input.correctedContent ?? null,
        reward: calculateFeedbackReward(input),
        createdAt: isoNow(),
      };
      feedbackSync?.noteLearned(record);
      await base.learningSink.recordFeedback(record);

      // The rated sources rank higher (or lower) for questions like this one.
      const boostedChunks = await learnFromFeedback(record, message);
      events.emit('feedback', {
        messageId: message.id,
        sessionId: message.sessionId,
        rating: record.rating,
        reward: record.reward,
        boostedChunks,
      });

      if (input.ingestCorrection && record.correctedContent) {
        const documentId = `correction:${message.id}`;
        await engine.ingest([
          {
            id: documentId,
            title: 'Correction',
            text: record.correctedContent,
            metadata: { correctionOf: message.id },
          },
        ]);
        // In the graph the correction is DERIVED_FROM the message it corrects.
        if (graphStore) {
          await graphStore.upsertNodes(resolved.namespace, [
            {
              id: `message:${message.id}`,
              type: 'message',
              properties: { sessionId: message.sessionId },
            },
          ]);
          await graphStore.upsertEdges(resolved.namespace, [
            {
              from: documentNodeId(documentId),
              to: `message:${message.id}`,
              type: 'DERIVED_FROM',
              weight: 1,
            },
          ]);
        }
      }
      return record;
    },

    async history(params) {
      const input = parseInput(historySchema, params, 'history parameters');
      const session = await loadOwnedSession(base.sessionStore, input.sessionId, input.userId);
      // Messages are only ever appended, so a position from the start is a stable cursor.
      const offset = input.cursor === undefined ? input.offset : Number(input.cursor.slice(1));
      const [messages, total] = await Promise.all([
        base.sessionStore.listMessages(session.id, { limit: input.limit, offset }),
        base.sessionStore.countMessages(session.id),
      ]);
      const next = offset + messages.length;
      const onPage = new Set(messages.map((message) => message.id));
      const feedback = input.includeFeedback
        ? (await base.learningSink.listFeedback({ sessionId: session.id })).filter((record) =>
            onPage.has(record.messageId),
          )
        : undefined;
      return {
        ...(feedback ? { feedback } : {}),
        nextCursor: next < total ? `h${next}` : null,
        session,
        messages: input.includeSources
          ? messages
          : messages.map((message) => ({ ...message, sources: [] })),
        total,
        limit: input.limit,
        offset,
      };
    },

    async flush() {
      while (background.size > 0) await Promise.all([...background]);
      await feedbackSync?.settled();
      if (turnRuntime) await (await turnRuntime).recall.pending();
    },

    on(event, listener) {
      return events.on(event, listener);
    },
  };
  if (resolved.tracer) traceEngineCalls(engine, resolved.tracer, resolved.namespace);
  return engine;
}
