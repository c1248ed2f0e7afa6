/**
 * One chat turn, in the order of DESIGN §2: validate → session → persist the user message →
 * route → retrieve (guard) → remember → pack → generate → cite → score → persist → learn.
 * Every stage lives in its own file next to this one; this file only orchestrates them.
 */
import type { ResolvedConfig } from '../config.js';
import {
  AbortError,
  ConfigError,
  ConflictError,
  NotFoundError,
  RateLimitError,
  ValidationError,
} from '../errors/index.js';
import type { EngineEmitter, RateLimitEvent, RetryEvent } from '../events.js';
import { CircuitOpenError } from '../resilience/errors.js';
import { fallbackAnswer } from '../resilience/fallback.js';
import type {
  ProviderRateLimitEvent,
  ResilienceRetryEvent,
  ResilientLLM,
} from '../resilience/resilient-llm.js';
import type { Confidence, MessageRecord, SessionRecord, Source } from '../ports/chat-records.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { KeywordIndex } from '../ports/keyword-index.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { GraphStore } from '../ports/graph-store.js';
import type {
  FinishReason,
  LLMProvider,
  LLMStreamPart,
  PromptSource,
} from '../ports/llm-provider.js';
import type { Reranker } from '../ports/reranker.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { SessionStore } from '../ports/session-store.js';
import { redactRequest } from '../text/redact.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { TraceAttributes, TraceSpan, Tracer } from '../ports/tracer.js';
import type { VectorStore } from '../ports/vector-store.js';
import type { ChatResponse, ChatStreamPart } from '../types.js';
import { isoNow, ulid } from '../util/ids.js';
import {
  inSpan,
  inSpanSync,
  retrievalAttributes,
  retrievalSpanName,
  retrievalSpanOptions,
  traceScope,
  type StageOptions,
  type TraceScope,
} from '../util/tracing.js';
import type { EmbeddingCache } from './embedding-cache.js';
import { validateCitations } from './cite.js';
import { generateAnswer, toTurnError } from './generate.js';
import { planRetrieval, retrievalOptions, type Router } from './route.js';
import { isSmallTalk, smallTalkReply } from './small-talk.js';
import { judgeAnswer, type Grounding, type JudgePolicy, type JudgeResult } from './judge.js';
import { recordLearningStep } from './learn.js';
import { rateLimitKey } from '../util/rate-limit-key.js';
import { compactSession, resolveChatProfile, selectContext } from './compact.js';
import { NO_POSITION, turnNumberOf, turnPosition } from './position.js';
import {
  ANSWER_WAIT_MS,
  findPreviousTurn,
  replayResponse,
  waitForAnswer,
  type AnsweredTurn,
  type PreviousTurnQuery,
} from './idempotency.js';
import type { Recall, RecalledMessage } from './recall.js';
import { rewriteQuery, type RewriteResult } from './rewrite.js';
import { packContext } from './pack.js';
import { buildSystemPrompt } from './prompt.js';
import { toModelHistory } from './remember.js';
import {
  retrieve,
  type RetrievalResult,
  type RetrievedChunk,
  type SearchCache,
} from './retrieve.js';
import { scoreConfidence } from './score.js';
import { decideGuard, DEFAULT_GUARD_MODEL } from './guard.js';
import { toPromptSources, toSources } from './sources.js';
import { chatRequestSchema, parseInput } from '../validate.js';

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

/** The `retry` event of a resilience retry. */
export function retryEvent(
  turnId: string | null,
  event: ResilienceRetryEvent,
  sessionId: string | null = null,
): RetryEvent {
  return {
    turnId,
    sessionId,
    provider: event.provider,
    operation: event.operation,
    attempt: event.attempt,
    delayMs: event.delayMs,
    error: event.error,
  };
}

/** The `rateLimit` event of a provider's HTTP 429. */
export function providerRateLimitEvent(
  turnId: string | null,
  event: ProviderRateLimitEvent,
  sessionId: string | null = null,
): RateLimitEvent {
  return {
    turnId,
    sessionId,
    scope: 'provider',
    key: event.key,
    reason: 'provider',
    retryAfterMs: event.retryAfterMs,
  };
}

/** Receives stream parts as the turn produces them. */
export type PartSink = (part: ChatStreamPart) => void;

/** The message a quit word gets. */
export const QUIT_ANSWER = 'Session ended. Goodbye!';

/** Whether a message is one of the quit words. */
export function isQuitMessage(message: string, quitWords: readonly string[]): boolean {
  const text = message.trim().toLowerCase();
  return quitWords.some((word) => word.trim().toLowerCase() === text);
}

/** Loads a session for its owner; anyone else gets `NotFoundError`, never the data. */
export async function loadOwnedSession(
  store: SessionStore,
  sessionId: string,
  userId: string | undefined,
  signal?: AbortSignal,
): Promise<SessionRecord> {
  const session = await store.getSession(sessionId, { signal });
  if (!session || (userId !== undefined && session.userId !== userId)) {
    throw new NotFoundError('session', sessionId);
  }
  return session;
}

/**
 * The earlier turns of a stateless request as unsaved message records, so that the context
 * window, the follow-up rewrite and the prompt treat them exactly like a session's history.
 */
function statelessHistory(
  turns: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[],
  userId: string,
): MessageRecord[] {
  const createdAt = isoNow();
  return turns.map((turn, index) => ({
    id: `history-${index}`,
    sessionId: '',
    userId,
    role: turn.role,
    content: turn.content,
    status: 'complete',
    createdAt,
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
  }));
}

/** Runs a side step that must never fail the turn; failures become `error` events. */
async function sideStep(
  events: EngineEmitter,
  where: string,
  step: () => Promise<void>,
): Promise<void> {
  try {
    await step();
  } catch (error) {
    events.emit('error', { where, error });
  }
}

/**
 * Runs one turn. With `streaming`, the model is streamed and parts reach `sink` as they are
 * produced; otherwise one `generate` call. Resolves with the response; rejects with a
 * `CortexisError` (the user message stays stored, a partial answer is kept as `incomplete`).
 */
export async function runTurn(
  runtime: EngineRuntime,
  rawRequest: unknown,
  streaming: boolean,
  sink: PartSink,
  turnSpan?: TraceSpan,
): Promise<ChatResponse> {
  const { config, events, sessionStore } = runtime;
  const started = performance.now();
  const turnId = ulid();
  // Stage spans are children of the turn span; undefined (and free) when tracing is off.
  const scope = traceScope(runtime.tracer, turnSpan);
  turnSpan?.setAttributes({
    'cortexis.turn.id': turnId,
    'cortexis.streaming': streaming,
    'gen_ai.provider.name': runtime.llm.metadata.provider,
    'gen_ai.request.model': runtime.llm.metadata.model,
  });
  let sessionId: string | null = null;
  let partialMessageId: string | null = null;
  let signal: AbortSignal | undefined;
  try {
    const request = redactRequest(
      parseInput(chatRequestSchema(config.limits.maxMessageLength), rawRequest, 'chat request'),
      config.redact,
    );
    signal = request.signal;
    if (signal?.aborted) throw new AbortError('The turn was aborted before it started');
    if (request.history !== undefined && request.mode !== 'query') {
      const message =
        "only a stateless turn (mode: 'query') takes history; a session keeps its own";
      throw new ValidationError(`Invalid chat request: history: ${message}`, [
        { path: 'history', message },
      ]);
    }
    if (request.chatProfile !== undefined) checkChatProfile(config, request.chatProfile);

    // rate-limit, before anything is loaded or stored: one budget per user across all of
    // their conversations (new ones included), so rotating conversation ids gains nothing
    const limiter = runtime.rateLimiter;
    if (limiter) {
      const key =
        request.userId === undefined
          ? rateLimitKey('turn', 'anonymous')
          : rateLimitKey('turn', 'user', request.userId);
      const decision = await inSpan(scope, 'cortexis.rate_limit', async (span) => {
        const hit = await limiter.hit(key, Date.now(), { signal });
        span?.setAttributes({ 'cortexis.rate_limit.allowed': hit.allowed });
        return hit;
      });
      if (!decision.allowed) {
        const reason = decision.reason ?? 'window';
        events.emit('rateLimit', {
          turnId,
          sessionId: request.sessionId ?? null,
          scope: 'engine',
          key,
          reason,
          retryAfterMs: decision.retryAfterMs,
        });
        throw new RateLimitError(
          reason === 'flood' ? 'Messages are arriving too fast' : 'Too many messages',
          decision.retryAfterMs,
          'engine',
        );
      }
    }

    // session (a stateless query naming none has nothing to load)
    const needsSession = request.mode === 'chat' || request.sessionId !== undefined;
    const session: SessionRecord | null = !needsSession
      ? null
      : await inSpan(scope, 'cortexis.session', async () => {
          if (request.mode === 'chat') {
            if (request.sessionId === undefined) {
              return createSessionRecord(
                runtime,
                request.userId ?? 'anonymous',
                // A new conversation keeps the profile it was started with (seed 001).
                request.chatProfile === undefined ? {} : { chatProfile: request.chatProfile },
              );
            }
            const owned = await loadOwnedSession(
              sessionStore,
              request.sessionId,
              request.userId,
              signal,
            );
            if (owned.status !== 'active') {
              throw new ConflictError(`session '${owned.id}' has ended; start a new session`);
            }
            return owned;
          }
          // A stateless query naming a conversation still needs it to be the user's own.
          if (request.sessionId !== undefined) {
            await loadOwnedSession(sessionStore, request.sessionId, request.userId, signal);
          }
          return null;
        });
    sessionId = session?.id ?? null;
    turnSpan?.setAttributes({
      'cortexis.mode': request.mode,
      'gen_ai.conversation.id': sessionId ?? undefined,
    });
    const settings = session?.settings ?? {};
    // A session that chose a model is answered (and summarised) by it.
    if (settings.model !== undefined) runtime = withSessionModel(runtime, settings.model);

    if (session && isQuitMessage(request.message, config.quitWords)) {
      await runtime.endSession(session, 'quit');
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text: QUIT_ANSWER });
      turnSpan?.setAttributes({ 'cortexis.ended': true });
      return finalResponse(
        runtime,
        sink,
        {
          turnId,
          sessionId,
          userMessageId: null,
          text: QUIT_ANSWER,
          sources: [],
          chunks: [],
          guard: false,
          ended: true,
          started,
          retrievalMs: 0,
          generationMs: 0,
          outcome: undefined,
        },
        'complete',
        undefined,
        scope,
      );
    }

    // idempotency: a retried message returns the first answer instead of a second turn
    let userMessage: MessageRecord | null = null;
    const key: PreviousTurnQuery | undefined =
      session && request.messageId !== undefined
        ? { sessionId: session.id, requestId: request.messageId, message: request.message, signal }
        : undefined;
    if (key) {
      const previous = await findPreviousTurn(sessionStore, key);
      if (previous.status === 'answered') {
        turnSpan?.setAttributes({ 'cortexis.replayed': true });
        return replayTurn(runtime, sink, previous, true);
      }
      // Stored but never answered: answer it now, without storing it twice.
      if (previous.status === 'unanswered') userMessage = previous.userMessage;
    }

    // persist the user message first: no later failure can lose it
    if (session && !userMessage) {
      const message: MessageRecord = {
        id: ulid(),
        sessionId: session.id,
        userId: session.userId,
        role: 'user',
        content: request.message,
        status: 'complete',
        createdAt: isoNow(),
        sources: [],
        confidence: null,
        timings: null,
        guard: false,
        metadata: {},
        requestId: request.messageId ?? null,
      };
      try {
        await inSpan(
          scope,
          'cortexis.persist',
          () => sessionStore.appendMessages(session.id, [message], undefined, { signal }),
          PERSIST_USER,
        );
      } catch (error) {
        // Another engine on this store stored the key first: its answer is this one's.
        if (!key || !ConflictError.isInstance(error)) throw error;
        const winner = await waitForAnswer(sessionStore, key, {
          timeoutMs: config.resilience.timeoutMs || ANSWER_WAIT_MS,
        });
        turnSpan?.setAttributes({ 'cortexis.replayed': true });
        return replayTurn(runtime, sink, winner, true);
      }
      userMessage = message;
      runtime.recall.index([userMessage]);
    }
    // seed 001: the question's number in the session, and whether its history was compacted
    const position = session
      ? await turnPosition(sessionStore, session.id, userMessage?.id ?? null, signal)
      : NO_POSITION;
    events.emit('turn.started', { turnId, sessionId, userMessageId: userMessage?.id ?? null });

    // small talk: greetings and thanks need no retrieval and never hit guard mode
    if (config.smallTalk && isSmallTalk(request.message)) {
      events.emit('route', {
        turnId,
        sessionId,
        route: 'small-talk',
        confidence: 1,
        k: 0,
        strategy: null,
      });
      sink({ type: 'route', route: 'small-talk', k: 0 });
      turnSpan?.setAttributes({ 'cortexis.route': 'small-talk', 'cortexis.retrieval.k': 0 });
      const text = smallTalkReply(request.message);
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text });
      return await finishTurn(
        runtime,
        sink,
        session,
        userMessage,
        {
          turnId,
          sessionId,
          userMessageId: userMessage?.id ?? null,
          text,
          sources: [],
          chunks: [],
          guard: false,
          ended: false,
          started,
          retrievalMs: 0,
          generationMs: 0,
          outcome: undefined,
          smallTalk: true,
          ...position,
        },
        scope,
      );
    }

    // remember: the summary and the uncovered recent turns, as the model will see them
    // The request's profile wins for this turn (seed 001 `chat_profile_id`), then the session's.
    const profile = resolveChatProfile(
      config.compaction,
      request.chatProfile ?? settings.chatProfile,
    );
    const userMessageId = userMessage?.id ?? null;
    const { context, history } = await inSpan(scope, 'cortexis.remember', async (span) => {
      const uncovered = session
        ? (
            await sessionStore.listMessages(session.id, {
              uncoveredOnly: true,
              order: 'desc',
              limit: 2 * profile.maxTurns + 8,
              signal,
            })
          ).reverse()
        : statelessHistory(request.history ?? [], request.userId ?? 'anonymous');
      const selected = selectContext(uncovered, profile, runtime.tokenizer, userMessageId);
      // `history.messages` caps the recent messages sent with the turn (seed 002).
      const modelHistory = lastMessages(
        toModelHistory(selected.messages, userMessageId),
        config.history.messages,
      );
      span?.setAttributes({
        'cortexis.history.messages': modelHistory.length,
        'cortexis.history.summary': selected.summary !== null,
      });
      return { context: selected, history: modelHistory };
    });

    // route: the intent's retrieval strategy
    const useRetrieval = settings.rag ?? true;
    const plan = useRetrieval
      ? await inSpan(scope, 'cortexis.route', async (span) => {
          const planned = await planRetrieval(runtime, request.message, {
            topK: request.topK,
            sessionTopK: settings.topK,
            searchDepth: request.searchDepth ?? settings.searchDepth,
            enableGNN: request.enableGNN ?? settings.enableGNN,
            enableGraphTraversal: request.enableGraphTraversal ?? settings.enableGraphTraversal,
            signal,
          });
          span?.setAttributes({
            'cortexis.route': planned.route,
            'cortexis.route.confidence': planned.confidence,
            'cortexis.retrieval.k': planned.k,
          });
          return planned;
        })
      : undefined;
    const k = plan?.k ?? 0;
    events.emit('route', {
      turnId,
      sessionId,
      route: plan?.route ?? 'chat',
      confidence: plan?.confidence ?? 1,
      k,
      strategy: plan?.strategy ?? null,
    });
    sink({ type: 'route', route: plan?.route ?? 'chat', k });
    turnSpan?.setAttributes({ 'cortexis.route': plan?.route ?? 'chat', 'cortexis.retrieval.k': k });

    // rewrite a follow-up into a standalone query, then retrieve; a failure degrades to a
    // turn without context
    const retrievalStarted = performance.now();
    const rewrite: RewriteResult =
      plan && config.rewrite.enabled
        ? await inSpan(scope, 'cortexis.rewrite', async (span) => {
            const rewritten = await rewriteQuery({
              message: request.message,
              history: history.slice(-config.rewrite.historyMessages),
              llm: usesLLMRewrite(runtime) ? runtime.llm : undefined,
              maxQueryLength: config.rewrite.maxQueryLength,
              signal,
            });
            span?.setAttributes({
              'cortexis.rewrite.rewritten': rewritten.rewritten,
              'cortexis.rewrite.method': rewritten.method,
            });
            return rewritten;
          })
        : { query: request.message, rewritten: false, method: 'none' };
    let retrieval: RetrievalResult | null = null;
    let retrievalError: unknown;
    if (plan) {
      try {
        retrieval = await inSpan(
          scope,
          scope ? retrievalSpanName(config.namespace) : '',
          async (span) => {
            const result = await retrieve(
              rewrite.query,
              runtime,
              retrievalOptions(runtime, {
                k,
                maxK: plan.maxK,
                strategy: plan.strategy,
                filter: request.filter,
                threshold: settings.threshold,
                signal,
              }),
            );
            span?.setAttributes(
              retrievalAttributes(
                result,
                runtime.tracer?.recordContent ? rewrite.query : undefined,
              ),
            );
            return result;
          },
          () => retrievalSpanOptions(config.namespace, k),
        );
      } catch (error) {
        if (signal?.aborted) throw new AbortError('The turn was aborted', { cause: error });
        retrievalError = error;
      }
    }
    const retrievalMs = performance.now() - retrievalStarted;
    if (retrieval) {
      turnSpan?.setAttributes({
        'cortexis.retrieval.top_score': retrieval.topScore,
        'cortexis.retrieval.cache_hit': retrieval.cacheHit,
      });
    } else if (retrievalError !== undefined) {
      turnSpan?.setAttributes({ 'cortexis.retrieval.failed': true });
    }
    // guard: a fixed minSimilarity when the user set one, else the index-adaptive model
    const fixedMinSimilarity = settings.minSimilarity ?? config.retrieval.minSimilarity;
    const found = retrieval;
    const decision =
      found === null
        ? null
        : await inSpan(scope, 'cortexis.guard', async (span) => {
            const decided = decideGuard({
              query: rewrite.query,
              chunks: found.chunks,
              topScore: found.topScore,
              // Index size for the adaptive guard; a failing count must not fail the turn.
              indexSize:
                fixedMinSimilarity === undefined && found.chunks.length > 0
                  ? await runtime.keywordIndex
                      .count(config.namespace, { signal })
                      .catch((error: unknown) => {
                        if (signal?.aborted) throw error;
                        return 0;
                      })
                  : 0,
              cosineRange: config.retrieval.cosineRange ?? runtime.embedder.similarityRange,
              minSimilarity: fixedMinSimilarity,
            });
            span?.setAttributes({
              'cortexis.guard': decided.guard,
              'cortexis.guard.reason': decided.reason ?? undefined,
              'cortexis.guard.evidence': decided.evidence,
              'cortexis.guard.threshold': decided.threshold,
              'cortexis.guard.adaptive': decided.adaptive,
            });
            return decided;
          });
    const minSimilarity = decision?.threshold ?? fixedMinSimilarity ?? DEFAULT_GUARD_MODEL.cut;

    if (decision?.guard && retrieval) {
      events.emit(
        'retrieval',
        retrievalEvent(turnId, sessionId, rewrite, retrieval, 0, retrievalMs),
      );
      events.emit('guard', {
        turnId,
        sessionId,
        reason: decision.reason ?? 'low-similarity',
        topScore: retrieval.topScore,
        minSimilarity,
        evidence: decision.evidence,
        adaptive: decision.adaptive,
      });
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text: config.prompt.guard });
      turnSpan?.setAttributes({ 'cortexis.guard.reason': decision.reason ?? 'low-similarity' });
      return await finishTurn(
        runtime,
        sink,
        session,
        userMessage,
        {
          turnId,
          sessionId,
          userMessageId: userMessage?.id ?? null,
          text: config.prompt.guard,
          sources: [],
          chunks: [],
          guard: true,
          ended: false,
          started,
          retrievalMs,
          generationMs: 0,
          outcome: undefined,
          route: plan?.route ?? 'chat',
          ...position,
        },
        scope,
      );
    }

    // recall the same user's earlier messages, then pack everything under one budget
    const recallStarted = performance.now();
    let recallFailed = false;
    const recalled = session
      ? await inSpan(scope, 'cortexis.recall', async (span) => {
          const earlier = await runtime.recall.recall({
            userId: session.userId,
            sessionId: session.id,
            query: rewrite.query,
            excludeIds: [
              ...(userMessage ? [userMessage.id] : []),
              ...context.messages.map((message) => message.id),
            ],
            signal,
            onFailure: () => (recallFailed = true),
          });
          span?.setAttributes({ 'cortexis.recall.count': earlier.length });
          return earlier;
        })
      : [];
    const recallMs = performance.now() - recallStarted;
    const template = settings.systemPrompt ?? config.prompt.system;
    const maxTokens = settings.maxTokens ?? config.generation.maxTokens;
    const packed = inSpanSync(scope, 'cortexis.pack', (span) => {
      const result = packContext(
        {
          contextWindow: runtime.llm.metadata.contextWindow,
          answerTokens: maxTokens,
          system: buildSystemPrompt(template, []),
          message: request.message,
          summary: profile.includeSummaryInContext ? context.summary : null,
          history,
          historyTokens: Math.min(profile.reservedTokens, config.history.maxTokens),
          chunks: retrieval?.chunks ?? [],
          recalled,
          caps: { summary: profile.summaryTokens, recalled: config.recall.maxTokens },
        },
        runtime.tokenizer,
      );
      span?.setAttributes({
        'cortexis.pack.prompt_tokens': result.promptTokens,
        'cortexis.pack.chunks': result.chunks.length,
        'cortexis.pack.dropped_chunks': result.droppedChunks,
        'cortexis.pack.dropped_history': result.droppedHistory,
      });
      return result;
    });
    if (session) {
      events.emit('recall', {
        turnId,
        sessionId: session.id,
        userId: session.userId,
        enabled: config.recall.enabled,
        failed: recallFailed,
        scope: config.recall.scope,
        messageLength: rewrite.query.length,
        found: recalled.length,
        messageIds: packed.recalled.map((message) => message.messageId),
        contextTokens: packed.recalled.reduce((sum, message) => sum + message.tokens, 0),
        durationMs: recallMs,
      });
    }
    const sources = toSources(packed.chunks);
    if (retrieval) {
      events.emit(
        'retrieval',
        retrievalEvent(turnId, sessionId, rewrite, retrieval, packed.droppedChunks, retrievalMs),
      );
    } else if (retrievalError !== undefined) {
      events.emit('retrieval', {
        turnId,
        sessionId,
        query: rewrite.query,
        rewritten: rewrite.rewritten,
        rewriteMethod: rewrite.method,
        ids: [],
        scores: [],
        topScore: 0,
        cacheHit: false,
        searchCacheHit: false,
        widened: false,
        droppedForBudget: 0,
        durationMs: retrievalMs,
        error: retrievalError instanceof Error ? retrievalError.message : String(retrievalError),
      });
    }
    sink({ type: 'sources', sources });

    // generate + cite
    const generationStarted = performance.now();
    const promptSources = toPromptSources(packed.chunks, sources);
    const llm = runtime.llm.withContext({
      conversationId: sessionId,
      hooks: {
        onRetry: (event) => events.emit('retry', retryEvent(turnId, event, sessionId)),
        onRateLimit: (event) =>
          events.emit('rateLimit', providerRateLimitEvent(turnId, event, sessionId)),
      },
    });
    const temperature =
      request.temperature ?? settings.temperature ?? config.generation.temperature;
    const { metadata } = runtime.llm;
    let outcome = await inSpan(
      scope,
      scope ? `chat ${metadata.model}` : '',
      async (span) => {
        const system = buildSystemPrompt(
          template,
          promptSources,
          packed.history.length > 0 ? config.prompt.chat : undefined,
          { block: packed.memory, position: profile.summaryPosition },
        );
        // Recalled messages come first as a fenced user message, never in the system prompt.
        const messages = [...packed.messages, { role: 'user' as const, content: request.message }];
        const content = span && runtime.tracer?.recordContent === true;
        const generated = await generateAnswer(
          span ? observeModel(llm, span, performance.now()) : llm,
          {
            system,
            messages,
            sources: promptSources,
            // The extractive model answers the standalone question, not the bare follow-up.
            ...(rewrite.rewritten ? { retrievalQuery: rewrite.query } : {}),
            maxTokens,
            temperature,
            signal,
          },
          sources.map((source) => source.id),
          streaming ? (text) => sink({ type: 'text-delta', text }) : undefined,
          {
            removalNote: config.citations.removalNote,
            includeCitations: settings.includeCitations ?? config.citations.includeCitations,
            // A model that cites a chunk id (`[source: refunds#0]`) cites its label.
            aliases: new Map(sources.map((source) => [source.chunkId, source.id])),
          },
        );
        if (span) {
          span.setAttributes({
            'gen_ai.usage.input_tokens': generated.usage?.inputTokens,
            'gen_ai.usage.output_tokens': generated.usage?.outputTokens,
            'cortexis.pack.prompt_tokens': packed.promptTokens,
            'cortexis.citations.removed': generated.citations.removed.length,
            ...(content ? contentAttributes(system, messages, generated.text) : {}),
          });
          if (generated.error && CircuitOpenError.isInstance(generated.error)) {
            span.setAttributes({ 'cortexis.breaker.open': true });
          } else if (generated.error) {
            span.recordError(generated.error);
          }
        }
        return generated;
      },
      (): StageOptions => ({
        kind: 'client',
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': metadata.provider,
          'gen_ai.request.model': metadata.model,
          'gen_ai.conversation.id': sessionId ?? undefined,
          'gen_ai.request.max_tokens': maxTokens,
          'gen_ai.request.temperature': temperature,
          'gen_ai.request.stream': streaming,
          'gen_ai.output.type': 'text',
          'cortexis.stage': 'generate',
          'cortexis.source.count': sources.length,
        },
      }),
    );
    // While the breaker is open the provider is not called: a fallback built from the sources.
    let breakerOpen = false;
    if (outcome.error && CircuitOpenError.isInstance(outcome.error) && outcome.text === '') {
      breakerOpen = true;
      const fallback = fallbackAnswer(promptSources, config.prompt.fallback);
      const validated = validateCitations(
        fallback,
        sources.map((source) => source.id),
      );
      if (streaming) sink({ type: 'text-delta', text: validated.text });
      outcome = {
        text: validated.text,
        answer: validated.text,
        citations: validated.report,
        certainty: undefined,
        usage: undefined,
        error: undefined,
      };
      turnSpan?.setAttributes({ 'cortexis.breaker.open': true });
    }
    const generationMs = performance.now() - generationStarted;
    events.emit('metrics', {
      turnId,
      sessionId,
      phase: 'generate',
      ms: generationMs,
      detail: {
        promptTokens: packed.promptTokens,
        ...(outcome.usage ? { outputTokens: outcome.usage.outputTokens } : {}),
      },
    });

    const generated: TurnState = {
      route: plan?.route ?? 'chat',
      recalled: packed.recalled,
      turnId,
      sessionId,
      userMessageId: userMessage?.id ?? null,
      text: outcome.text,
      sources,
      chunks: packed.chunks,
      guard: false,
      ended: false,
      started,
      retrievalMs,
      generationMs,
      outcome,
      degraded: retrievalError !== undefined || breakerOpen,
      graphSupport: retrieval?.graphSupport,
      ...position,
    };
    if (outcome.error) {
      if (session && userMessage && outcome.text.length > 0) {
        const partial = generated;
        await inSpan(
          scope,
          'cortexis.persist',
          () => storeAssistantMessage(runtime, session, partial, 'incomplete'),
          PERSIST_ASSISTANT,
        );
        partialMessageId = generated.turnId;
      }
      throw outcome.error;
    }

    // judge: check each cited sentence against its sources
    const policy = settings.judgePolicy ?? config.judge.policy;
    const judged =
      config.judge.mode === 'off' || sources.length === 0
        ? undefined
        : await judgeTurn(runtime, generated, policy, promptSources, signal, scope);
    const turn: TurnState = judged
      ? {
          ...generated,
          text: judged.blocked ? config.prompt.guard : judged.text,
          sources: judged.blocked ? [] : sources,
          guard: judged.blocked,
          grounding: judged.grounding,
        }
      : generated;
    if (!streaming) sink({ type: 'text-delta', text: turn.text });
    if (judged) {
      if (judged.blocked) {
        events.emit('guard', {
          turnId,
          sessionId,
          reason: 'judge',
          topScore: retrieval?.topScore ?? 0,
          minSimilarity,
        });
        turnSpan?.setAttributes({ 'cortexis.guard.reason': 'judge' });
      }
      sink({
        type: 'grounding',
        grounding: judged.grounding,
        text: turn.text,
        removed: judged.removed,
        blocked: judged.blocked,
      });
    }
    return await finishTurn(runtime, sink, session, userMessage, turn, scope);
  } catch (error) {
    const failure = toTurnError(error, signal);
    events.emit('turn.failed', { turnId, sessionId, error: failure });
    sink({
      type: 'error',
      error: { code: failure.code, message: failure.message, retryable: failure.retryable },
      partialMessageId,
    });
    throw failure;
  }
}

/** Span options of the writes of a turn's messages. */
const PERSIST_USER: StageOptions = {
  attributes: { 'cortexis.stage': 'persist', 'cortexis.message.role': 'user' },
};
const PERSIST_ASSISTANT: StageOptions = {
  attributes: { 'cortexis.stage': 'persist', 'cortexis.message.role': 'assistant' },
};

/** OpenTelemetry's names of the finish reasons. */
const FINISH_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  other: 'other',
};

/**
 * The model as the generate span sees it: the same calls, reporting the finish reason and
 * the time to the first streamed chunk on the span. Used only when the turn is traced.
 */
export function observeModel(llm: LLMProvider, span: TraceSpan, started: number): LLMProvider {
  const finished = (reason: FinishReason): void =>
    span.setAttributes({ 'gen_ai.response.finish_reasons': [FINISH_REASONS[reason]] });
  return {
    name: llm.name,
    specificationVersion: llm.specificationVersion,
    metadata: llm.metadata,
    async generate(request) {
      const result = await llm.generate(request);
      finished(result.finishReason);
      return result;
    },
    async *stream(request): AsyncGenerator<LLMStreamPart> {
      let first = true;
      for await (const part of llm.stream(request)) {
        if (first && part.type === 'text-delta') {
          first = false;
          span.setAttributes({
            'gen_ai.response.time_to_first_chunk': (performance.now() - started) / 1000,
          });
        } else if (part.type === 'finish') {
          finished(part.finishReason);
        }
        yield part;
      }
    },
  };
}

/**
 * The prompt and the answer as GenAI content attributes (JSON strings), for tracers that
 * record content (`recordContent`): never set otherwise.
 */
function contentAttributes(
  system: string,
  messages: readonly { readonly role: string; readonly content: string }[],
  answer: string,
): TraceAttributes {
  const parts = (content: string) => [{ type: 'text', content }];
  return {
    'gen_ai.system_instructions': JSON.stringify(parts(system)),
    'gen_ai.input.messages': JSON.stringify(
      messages.map((message) => ({ role: message.role, parts: parts(message.content) })),
    ),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: parts(answer) }]),
  };
}

/** A turn's state between generation and the response. */
interface TurnState {
  readonly turnId: string;
  readonly sessionId: string | null;
  readonly userMessageId: string | null;
  readonly text: string;
  readonly sources: Source[];
  readonly chunks: readonly RetrievedChunk[];
  readonly guard: boolean;
  readonly ended: boolean;
  readonly started: number;
  readonly retrievalMs: number;
  readonly generationMs: number;
  readonly outcome: Awaited<ReturnType<typeof generateAnswer>> | undefined;
  readonly degraded?: boolean;
  readonly grounding?: Grounding | null;
  /** Graph support of the sources in [0, 1], when graph rerank ran. */
  readonly graphSupport?: number | undefined;
  /** A small-talk reply (no learning step). */
  readonly smallTalk?: boolean | undefined;
  /** The route the turn took (`retrieval`, `relational`, …; `chat` without retrieval). */
  readonly route?: string | undefined;
  /** Earlier messages recalled into the prompt. */
  readonly recalled?: readonly RecalledMessage[] | undefined;
  /** The question's number in its session (null without a session). */
  readonly turnNumber?: number | null | undefined;
  /** A summary was written since the session's previous answer. */
  readonly historyCompacted?: boolean | undefined;
}

/** The last `count` items (none for 0). */
function lastMessages<T>(items: readonly T[], count: number): T[] {
  return count <= 0 ? [] : items.slice(-count);
}

/** Runs the grounding judge on a generated answer and reports it. */
async function judgeTurn(
  runtime: EngineRuntime,
  turn: TurnState,
  policy: JudgePolicy,
  promptSources: readonly PromptSource[],
  signal: AbortSignal | undefined,
  scope: TraceScope | undefined,
): Promise<JudgeResult> {
  const { config, events } = runtime;
  const started = performance.now();
  const notes = turn.text.slice(turn.outcome?.answer.length ?? turn.text.length);
  const judged = await inSpan(scope, 'cortexis.judge', async (span) => {
    const result = await judgeAnswer({
      answer: turn.outcome?.answer ?? turn.text,
      sources: promptSources.map((source) => ({ id: source.label, text: source.text })),
      policy,
      threshold: config.judge.threshold,
      minSupportedRatio: config.judge.minSupportedRatio,
      llm: config.judge.mode === 'llm' ? runtime.llm : undefined,
      signal,
    });
    span?.setAttributes({
      'cortexis.judge.mode': config.judge.mode,
      'cortexis.judge.policy': policy,
      'cortexis.judge.claims': result.grounding.claims.length,
      'cortexis.judge.removed': result.removed.length,
      'cortexis.judge.blocked': result.blocked,
      'cortexis.grounding.supported_ratio': result.grounding.supportedRatio,
    });
    return result;
  });
  events.emit('judge', {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    grounding: judged.grounding,
    policy,
    removed: judged.removed.length,
    blocked: judged.blocked,
    durationMs: performance.now() - started,
  });
  return notes ? { ...judged, text: judged.text + notes } : judged;
}

/** The runtime of a session that chose a model of the engine's registry. */
function withSessionModel(runtime: EngineRuntime, name: string): EngineRuntime {
  const llm = runtime.models.get(name);
  if (llm === undefined) {
    // Checked when the session was created; a registry changed since then is a config error.
    throw new ConfigError(
      `Session model '${name}' is not in the engine's models (known: ${[...runtime.models.keys()].join(', ') || 'none'})`,
      [{ path: 'models', message: `names no model '${name}'` }],
    );
  }
  return { ...runtime, llm };
}

/** A request's `chatProfile` must name a profile: a `ValidationError` before anything is stored. */
function checkChatProfile(config: EngineRuntime['config'], name: string): void {
  try {
    resolveChatProfile(config.compaction, name);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ValidationError(`Invalid chat request: chatProfile: ${message}`, [
      { path: 'chatProfile', message },
    ]);
  }
}

async function createSessionRecord(
  runtime: EngineRuntime,
  userId: string,
  settings: SessionRecord['settings'] = {},
): Promise<SessionRecord> {
  const now = isoNow();
  const session: SessionRecord = {
    id: ulid(),
    userId,
    title: null,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    endedAt: null,
    trajectoryId: null,
    settings,
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
  await runtime.sessionStore.createSession(session);
  runtime.events.emit('session.created', { session });
  return session;
}

function retrievalEvent(
  turnId: string | null,
  sessionId: string | null,
  rewrite: RewriteResult,
  retrieval: RetrievalResult,
  droppedForBudget: number,
  durationMs: number,
) {
  return {
    turnId,
    sessionId,
    query: rewrite.query,
    rewritten: rewrite.rewritten,
    rewriteMethod: rewrite.method,
    ids: retrieval.chunks.map((chunk) => chunk.chunkId),
    scores: retrieval.chunks.map((chunk) => chunk.score),
    topScore: retrieval.topScore,
    cacheHit: retrieval.cacheHit,
    searchCacheHit: retrieval.searchCacheHit,
    widened: retrieval.widened,
    droppedForBudget,
    durationMs,
  };
}

function confidenceOf(runtime: EngineRuntime, turn: TurnState) {
  return scoreConfidence(
    {
      sources: turn.guard ? [] : turn.sources,
      graphSupport: turn.graphSupport,
      // Without a certainty from the model, the share of claims the sources support.
      llmCertainty: turn.outcome?.certainty ?? turn.grounding?.supportedRatio,
      // Mostly unsupported claims cap the level below high.
      supportedRatio: turn.grounding?.supportedRatio,
    },
    runtime.config.confidence.weights,
  );
}

async function storeAssistantMessage(
  runtime: EngineRuntime,
  session: SessionRecord,
  turn: TurnState,
  status: MessageRecord['status'],
  confidence: Confidence = confidenceOf(runtime, turn),
): Promise<MessageRecord> {
  const message: MessageRecord = {
    id: turn.turnId,
    sessionId: session.id,
    userId: session.userId,
    role: 'assistant',
    content: turn.text,
    status,
    createdAt: isoNow(),
    sources: turn.sources,
    confidence,
    timings: {
      retrievalMs: turn.retrievalMs,
      generationMs: turn.generationMs,
      totalMs: performance.now() - turn.started,
    },
    guard: turn.guard,
    metadata: {},
    replyTo: turn.userMessageId,
  };
  // One write: the message, its sources and the session totals.
  await runtime.sessionStore.appendMessages(session.id, [message], {
    searchMs: turn.retrievalMs,
    generationMs: turn.generationMs,
  });
  runtime.recall.index([message]);
  return message;
}

/**
 * Answers with a turn stored earlier (an idempotent retry, or the winner of a race between
 * engines). `withText` sends its sources and text first; without it only `done` (the loser of
 * the race for the answer has streamed its own draft already).
 */
async function replayTurn(
  runtime: EngineRuntime,
  sink: PartSink,
  previous: AnsweredTurn,
  withText: boolean,
): Promise<ChatResponse> {
  const response = replayResponse(previous, {
    model: runtime.llm.metadata.model,
    confidenceWeights: runtime.config.confidence.weights,
    turnNumber: await turnNumberOf(runtime.sessionStore, previous.userMessage),
  });
  if (withText) {
    sink({ type: 'sources', sources: response.sources });
    sink({ type: 'text-delta', text: response.text });
  }
  sink({ type: 'done', response });
  return response;
}

/** cite → score → persist → learn, then the response. */
async function finishTurn(
  runtime: EngineRuntime,
  sink: PartSink,
  session: SessionRecord | null,
  userMessage: MessageRecord | null,
  turn: TurnState,
  scope: TraceScope | undefined,
): Promise<ChatResponse> {
  const status = turn.degraded ? 'degraded' : 'complete';
  const confidence = inSpanSync(scope, 'cortexis.score', (span) => {
    const scored = confidenceOf(runtime, turn);
    span?.setAttributes({
      'cortexis.confidence.level': scored.level,
      'cortexis.confidence.value': scored.overall,
    });
    return scored;
  });
  if (session) {
    let message: MessageRecord;
    try {
      message = await inSpan(
        scope,
        'cortexis.persist',
        () => storeAssistantMessage(runtime, session, turn, status, confidence),
        PERSIST_ASSISTANT,
      );
    } catch (error) {
      // Another engine answered this idempotent message first: the stored answer is the answer.
      const requestId = userMessage?.requestId;
      if (!ConflictError.isInstance(error) || requestId == null) throw error;
      const previous = await findPreviousTurn(runtime.sessionStore, {
        sessionId: session.id,
        requestId,
      });
      if (previous.status !== 'answered') throw error;
      scope?.parent.setAttributes({ 'cortexis.replayed': true });
      return replayTurn(runtime, sink, previous, false);
    }
    // Small talk is no retrieval attempt to learn from.
    if (!turn.smallTalk) {
      await sideStep(runtime.events, 'learn', () =>
        inSpan(scope, 'cortexis.learn', () =>
          recordLearningStep(runtime, session, userMessage?.content ?? '', message, turn.route),
        ),
      );
    }
    // Off the reply path: runs after this turn, before the session's next one.
    runtime.afterTurn(session.id, () =>
      sideStep(runtime.events, 'compact', () => compactSession(runtime, session, turn.turnId)),
    );
  }
  return finalResponse(runtime, sink, turn, status, confidence, scope);
}

function finalResponse(
  runtime: EngineRuntime,
  sink: PartSink,
  turn: TurnState,
  status: MessageRecord['status'] = 'complete',
  confidence: Confidence = confidenceOf(runtime, turn),
  scope?: TraceScope,
): ChatResponse {
  const { events } = runtime;
  const citations = turn.outcome?.citations ?? { generatedIds: [], validIds: [], removed: [] };
  if (!turn.ended) {
    events.emit('citations', { turnId: turn.turnId, sessionId: turn.sessionId, ...citations });
    events.emit('confidence', { turnId: turn.turnId, sessionId: turn.sessionId, confidence });
    sink({ type: 'citations', ...citations });
    sink({ type: 'confidence', confidence });
  }
  const totalMs = performance.now() - turn.started;
  const response: ChatResponse = {
    messageId: turn.turnId,
    userMessageId: turn.userMessageId,
    sessionId: turn.sessionId,
    text: turn.text,
    sources: turn.sources,
    confidence,
    citations,
    guard: turn.guard,
    grounding: turn.grounding ?? null,
    status,
    ended: turn.ended,
    timings: { retrievalMs: turn.retrievalMs, generationMs: turn.generationMs, totalMs },
    usage: turn.outcome?.usage ?? null,
    model: runtime.llm.metadata.model,
    turnNumber: turn.turnNumber ?? null,
    historyCompacted: turn.historyCompacted ?? false,
    recalled: (turn.recalled ?? []).map((message) => ({
      messageId: message.messageId,
      sessionId: message.sessionId,
      role: message.role,
      score: message.score,
      createdAt: message.createdAt,
    })),
    createdAt: isoNow(),
  };
  scope?.parent.setAttributes({
    'cortexis.status': status,
    'cortexis.source.count': turn.sources.length,
    'cortexis.guard': turn.guard,
    'cortexis.confidence.level': confidence.level,
    'cortexis.confidence.value': confidence.overall,
    'cortexis.grounding.supported_ratio': turn.grounding?.supportedRatio,
    'cortexis.citations.removed': citations.removed.length,
  });
  events.emit('metrics', {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    phase: 'turn',
    ms: totalMs,
  });
  events.emit('turn.completed', {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    sources: turn.sources,
    guard: turn.guard,
    durationMs: totalMs,
  });
  sink({ type: 'done', response });
  return response;
}

/** Whether follow-ups are condensed by the model (a real one; the extractive model can't). */
function usesLLMRewrite(runtime: EngineRuntime): boolean {
  const mode = runtime.config.rewrite.llm;
  return (
    mode === 'always' || (mode === 'auto' && runtime.llm.metadata.followsInstructions !== false)
  );
}
