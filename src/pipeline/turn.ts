/**
 * One chat turn, in the order of DESIGN §2: validate → session → persist the user message →
 * route → retrieve (guard) → remember → pack → generate → cite → score → persist → learn.
 * Every stage lives in its own file next to this one; this file only orchestrates them.
 */
import type { ResolvedConfig } from '../config.js';
import { AbortError, ConflictError, NotFoundError, RateLimitError } from '../errors/index.js';
import type { EngineEmitter, RateLimitEvent, RetryEvent } from '../events.js';
import { CircuitOpenError } from '../resilience/errors.js';
import { fallbackAnswer } from '../resilience/fallback.js';
import type {
  ProviderRateLimitEvent,
  ResilienceRetryEvent,
  ResilientLLM,
} from '../resilience/resilient-llm.js';
import type { MessageRecord, SessionRecord, Source } from '../ports/chat-records.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { KeywordIndex } from '../ports/keyword-index.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { GraphStore } from '../ports/graph-store.js';
import type { PromptSource } from '../ports/llm-provider.js';
import type { Reranker } from '../ports/reranker.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { SessionStore } from '../ports/session-store.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { VectorStore } from '../ports/vector-store.js';
import type { ChatResponse, ChatStreamPart } from '../types.js';
import { isoNow, ulid } from '../util/ids.js';
import type { EmbeddingCache } from './embedding-cache.js';
import { validateCitations } from './cite.js';
import { generateAnswer, toTurnError } from './generate.js';
import { planRetrieval, retrievalOptions, type Router } from './route.js';
import { isSmallTalk, smallTalkReply } from './small-talk.js';
import { judgeAnswer, type Grounding, type JudgePolicy, type JudgeResult } from './judge.js';
import { recordLearningStep } from './learn.js';
import { EXTRACTIVE_PROVIDER } from '../adapters/extractive/provider.js';
import { rateLimitKey } from '../util/rate-limit-key.js';
import { compactSession, resolveChatProfile, selectContext } from './compact.js';
import {
  ANSWER_WAIT_MS,
  findPreviousTurn,
  replayResponse,
  waitForAnswer,
  type AnsweredTurn,
  type PreviousTurnQuery,
} from './idempotency.js';
import type { Recall } from './recall.js';
import { rewriteQuery, type RewriteResult } from './rewrite.js';
import { packContext, withMemory } from './pack.js';
import { buildSystemPrompt } from './prompt.js';
import { toModelHistory } from './remember.js';
import { retrieve, type RetrievalResult, type RetrievedChunk } from './retrieve.js';
import { scoreConfidence } from './score.js';
import { decideGuard, DEFAULT_GUARD_MODEL } from './guard.js';
import { toPromptSources, toSources } from './sources.js';
import { chatRequestSchema, parseInput } from './validate.js';

/** Everything a turn needs: the resolved config and one adapter per port. */
export interface EngineRuntime {
  readonly config: ResolvedConfig;
  readonly vectorStore: VectorStore;
  readonly keywordIndex: KeywordIndex;
  readonly embedder: EmbeddingProvider;
  readonly embeddingCache: EmbeddingCache;
  /** The model behind timeouts, retries and the circuit breaker. */
  readonly llm: ResilientLLM;
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
  /** Ends a session (quit word); shared with `engine.endSession`. */
  readonly endSession: (session: SessionRecord, reason: 'quit' | 'ended') => Promise<void>;
  /** Schedules work after the current turn of a session, before its next turn. */
  readonly afterTurn: (sessionId: string, task: () => Promise<void>) => void;
}

/** The `retry` event of a resilience retry. */
export function retryEvent(turnId: string | null, event: ResilienceRetryEvent): RetryEvent {
  return {
    turnId,
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
): RateLimitEvent {
  return {
    turnId,
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
): Promise<ChatResponse> {
  const { config, events, sessionStore } = runtime;
  const started = performance.now();
  const turnId = ulid();
  let sessionId: string | null = null;
  let partialMessageId: string | null = null;
  let signal: AbortSignal | undefined;
  try {
    const request = parseInput(
      chatRequestSchema(config.limits.maxMessageLength),
      rawRequest,
      'chat request',
    );
    signal = request.signal;
    if (signal?.aborted) throw new AbortError('The turn was aborted before it started');

    // rate-limit, before anything is loaded or stored: one budget per user across all of
    // their conversations (new ones included), so rotating conversation ids gains nothing
    if (runtime.rateLimiter) {
      const key =
        request.userId === undefined
          ? rateLimitKey('turn', 'anonymous')
          : rateLimitKey('turn', 'user', request.userId);
      const decision = await runtime.rateLimiter.hit(key, Date.now(), { signal });
      if (!decision.allowed) {
        const reason = decision.reason ?? 'window';
        events.emit('rateLimit', {
          turnId,
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

    // session
    let session: SessionRecord | null = null;
    if (request.mode === 'chat') {
      if (request.sessionId !== undefined) {
        session = await loadOwnedSession(sessionStore, request.sessionId, request.userId, signal);
        if (session.status !== 'active') {
          throw new ConflictError(`session '${session.id}' has ended; start a new session`);
        }
      } else {
        session = await createSessionRecord(runtime, request.userId ?? 'anonymous');
      }
      sessionId = session.id;
    } else if (request.sessionId !== undefined) {
      // A stateless query naming a conversation still needs it to be the user's own.
      await loadOwnedSession(sessionStore, request.sessionId, request.userId, signal);
    }
    const settings = session?.settings ?? {};

    if (session && isQuitMessage(request.message, config.quitWords)) {
      await runtime.endSession(session, 'quit');
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text: QUIT_ANSWER });
      return finalResponse(runtime, sink, {
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
      });
    }

    // idempotency: a retried message returns the first answer instead of a second turn
    let userMessage: MessageRecord | null = null;
    const key: PreviousTurnQuery | undefined =
      session && request.messageId !== undefined
        ? { sessionId: session.id, requestId: request.messageId, message: request.message, signal }
        : undefined;
    if (key) {
      const previous = await findPreviousTurn(sessionStore, key);
      if (previous.status === 'answered') return replayTurn(runtime, sink, previous, true);
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
        await sessionStore.appendMessages(session.id, [message], undefined, { signal });
      } catch (error) {
        // Another engine on this store stored the key first: its answer is this one's.
        if (!key || !ConflictError.isInstance(error)) throw error;
        const winner = await waitForAnswer(sessionStore, key, {
          timeoutMs: config.resilience.timeoutMs || ANSWER_WAIT_MS,
        });
        return replayTurn(runtime, sink, winner, true);
      }
      userMessage = message;
      runtime.recall.index([userMessage]);
    }
    events.emit('turn.started', { turnId, sessionId, userMessageId: userMessage?.id ?? null });

    // small talk: greetings and thanks need no retrieval and never hit guard mode
    if (config.smallTalk && isSmallTalk(request.message)) {
      events.emit('route', { turnId, route: 'small-talk', confidence: 1, k: 0, strategy: null });
      sink({ type: 'route', route: 'small-talk', k: 0 });
      const text = smallTalkReply(request.message);
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text });
      return await finishTurn(runtime, sink, session, userMessage, {
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
      });
    }

    // remember: the summary and the uncovered recent turns, as the model will see them
    const profile = resolveChatProfile(config.compaction, settings.chatProfile);
    const uncovered = session
      ? (
          await sessionStore.listMessages(session.id, {
            uncoveredOnly: true,
            order: 'desc',
            limit: 2 * profile.maxTurns + 8,
            signal,
          })
        ).reverse()
      : [];
    const context = selectContext(uncovered, profile, runtime.tokenizer, userMessage?.id ?? null);
    const history = toModelHistory(context.messages, userMessage?.id ?? null);

    // route: the intent's retrieval strategy
    const useRetrieval = settings.rag ?? true;
    const plan = useRetrieval
      ? await planRetrieval(runtime, request.message, {
          topK: request.topK,
          sessionTopK: settings.topK,
          searchDepth: request.searchDepth ?? settings.searchDepth,
          signal,
        })
      : undefined;
    const k = plan?.k ?? 0;
    events.emit('route', {
      turnId,
      route: plan?.route ?? 'chat',
      confidence: plan?.confidence ?? 1,
      k,
      strategy: plan?.strategy ?? null,
    });
    sink({ type: 'route', route: plan?.route ?? 'chat', k });

    // rewrite a follow-up into a standalone query, then retrieve; a failure degrades to a
    // turn without context
    const retrievalStarted = performance.now();
    const rewrite: RewriteResult =
      plan && config.rewrite.enabled
        ? await rewriteQuery({
            message: request.message,
            history: history.slice(-config.rewrite.historyMessages),
            llm: usesLLMRewrite(runtime) ? runtime.llm : undefined,
            maxQueryLength: config.rewrite.maxQueryLength,
            signal,
          })
        : { query: request.message, rewritten: false, method: 'none' };
    let retrieval: RetrievalResult | null = null;
    let retrievalError: unknown;
    if (plan) {
      try {
        retrieval = await retrieve(
          rewrite.query,
          runtime,
          retrievalOptions(runtime, {
            k,
            maxK: plan.maxK,
            strategy: plan.strategy,
            filter: request.filter,
            signal,
          }),
        );
      } catch (error) {
        if (signal?.aborted) throw new AbortError('The turn was aborted', { cause: error });
        retrievalError = error;
      }
    }
    const retrievalMs = performance.now() - retrievalStarted;
    // guard: a fixed minSimilarity when the user set one, else the index-adaptive model
    const fixedMinSimilarity = settings.minSimilarity ?? config.retrieval.minSimilarity;
    const decision =
      retrieval === null
        ? null
        : decideGuard({
            query: rewrite.query,
            chunks: retrieval.chunks,
            topScore: retrieval.topScore,
            // Index size for the adaptive guard; a failing count must not fail the turn.
            indexSize:
              fixedMinSimilarity === undefined && retrieval.chunks.length > 0
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
    const minSimilarity = decision?.threshold ?? fixedMinSimilarity ?? DEFAULT_GUARD_MODEL.cut;

    if (decision?.guard && retrieval) {
      events.emit('retrieval', retrievalEvent(turnId, rewrite, retrieval, 0, retrievalMs));
      events.emit('guard', {
        turnId,
        reason: decision.reason ?? 'low-similarity',
        topScore: retrieval.topScore,
        minSimilarity,
        evidence: decision.evidence,
        adaptive: decision.adaptive,
      });
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text: config.prompt.guard });
      return await finishTurn(runtime, sink, session, userMessage, {
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
      });
    }

    // recall the same user's earlier messages, then pack everything under one budget
    const recalled = session
      ? await runtime.recall.recall({
          userId: session.userId,
          sessionId: session.id,
          query: rewrite.query,
          excludeIds: [
            ...(userMessage ? [userMessage.id] : []),
            ...context.messages.map((message) => message.id),
          ],
          signal,
        })
      : [];
    const template = settings.systemPrompt ?? config.prompt.system;
    const maxTokens = settings.maxTokens ?? config.generation.maxTokens;
    const packed = packContext(
      {
        contextWindow: runtime.llm.metadata.contextWindow,
        answerTokens: maxTokens,
        system: buildSystemPrompt(template, []),
        message: request.message,
        summary: context.summary,
        history,
        historyTokens: Math.min(profile.reservedTokens, config.history.maxTokens),
        chunks: retrieval?.chunks ?? [],
        recalled,
        caps: { summary: profile.summaryTokens, recalled: config.recall.maxTokens },
      },
      runtime.tokenizer,
    );
    const sources = toSources(packed.chunks);
    if (retrieval) {
      events.emit(
        'retrieval',
        retrievalEvent(turnId, rewrite, retrieval, packed.droppedChunks, retrievalMs),
      );
    } else if (retrievalError !== undefined) {
      events.emit('retrieval', {
        turnId,
        query: rewrite.query,
        rewritten: rewrite.rewritten,
        rewriteMethod: rewrite.method,
        ids: [],
        scores: [],
        topScore: 0,
        cacheHit: false,
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
        onRetry: (event) => events.emit('retry', retryEvent(turnId, event)),
        onRateLimit: (event) => events.emit('rateLimit', providerRateLimitEvent(turnId, event)),
      },
    });
    let outcome = await generateAnswer(
      llm,
      {
        system: withMemory(
          buildSystemPrompt(
            template,
            promptSources,
            packed.history.length > 0 ? config.prompt.chat : undefined,
          ),
          packed.memory,
        ),
        // Recalled messages come first as a fenced user message, never in the system prompt.
        messages: [...packed.messages, { role: 'user', content: request.message }],
        sources: promptSources,
        // The extractive model answers the standalone question, not the bare follow-up.
        ...(rewrite.rewritten ? { retrievalQuery: rewrite.query } : {}),
        maxTokens,
        temperature: request.temperature ?? settings.temperature ?? config.generation.temperature,
        signal,
      },
      sources.map((source) => source.id),
      streaming ? (text) => sink({ type: 'text-delta', text }) : undefined,
      {
        removalNote: config.citations.removalNote,
        includeCitations: settings.includeCitations ?? config.citations.includeCitations,
      },
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
    }
    const generationMs = performance.now() - generationStarted;
    events.emit('metrics', {
      turnId,
      phase: 'generate',
      ms: generationMs,
      detail: {
        promptTokens: packed.promptTokens,
        ...(outcome.usage ? { outputTokens: outcome.usage.outputTokens } : {}),
      },
    });

    const generated: TurnState = {
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
    };
    if (outcome.error) {
      if (session && userMessage && outcome.text.length > 0) {
        await storeAssistantMessage(runtime, session, generated, 'incomplete');
        partialMessageId = generated.turnId;
      }
      throw outcome.error;
    }

    // judge: check each cited sentence against its sources
    const policy = settings.judgePolicy ?? config.judge.policy;
    const judged =
      config.judge.mode === 'off' || sources.length === 0
        ? undefined
        : await judgeTurn(runtime, generated, policy, promptSources, signal);
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
          reason: 'judge',
          topScore: retrieval?.topScore ?? 0,
          minSimilarity,
        });
      }
      sink({
        type: 'grounding',
        grounding: judged.grounding,
        text: turn.text,
        removed: judged.removed,
        blocked: judged.blocked,
      });
    }
    return await finishTurn(runtime, sink, session, userMessage, turn);
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
}

/** Runs the grounding judge on a generated answer and reports it. */
async function judgeTurn(
  runtime: EngineRuntime,
  turn: TurnState,
  policy: JudgePolicy,
  promptSources: readonly PromptSource[],
  signal: AbortSignal | undefined,
): Promise<JudgeResult> {
  const { config, events } = runtime;
  const started = performance.now();
  const notes = turn.text.slice(turn.outcome?.answer.length ?? turn.text.length);
  const judged = await judgeAnswer({
    answer: turn.outcome?.answer ?? turn.text,
    sources: promptSources.map((source) => ({ id: source.label, text: source.text })),
    policy,
    threshold: config.judge.threshold,
    minSupportedRatio: config.judge.minSupportedRatio,
    llm: config.judge.mode === 'llm' ? runtime.llm : undefined,
    signal,
  });
  events.emit('judge', {
    turnId: turn.turnId,
    grounding: judged.grounding,
    policy,
    removed: judged.removed.length,
    blocked: judged.blocked,
    durationMs: performance.now() - started,
  });
  return notes ? { ...judged, text: judged.text + notes } : judged;
}

async function createSessionRecord(runtime: EngineRuntime, userId: string): Promise<SessionRecord> {
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
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  };
  await runtime.sessionStore.createSession(session);
  runtime.events.emit('session.created', { session });
  return session;
}

function retrievalEvent(
  turnId: string | null,
  rewrite: RewriteResult,
  retrieval: RetrievalResult,
  droppedForBudget: number,
  durationMs: number,
) {
  return {
    turnId,
    query: rewrite.query,
    rewritten: rewrite.rewritten,
    rewriteMethod: rewrite.method,
    ids: retrieval.chunks.map((chunk) => chunk.chunkId),
    scores: retrieval.chunks.map((chunk) => chunk.score),
    topScore: retrieval.topScore,
    cacheHit: retrieval.cacheHit,
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
    confidence: confidenceOf(runtime, turn),
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
function replayTurn(
  runtime: EngineRuntime,
  sink: PartSink,
  previous: AnsweredTurn,
  withText: boolean,
): ChatResponse {
  const response = replayResponse(previous, {
    model: runtime.llm.metadata.model,
    confidenceWeights: runtime.config.confidence.weights,
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
): Promise<ChatResponse> {
  const status = turn.degraded ? 'degraded' : 'complete';
  if (session) {
    let message: MessageRecord;
    try {
      message = await storeAssistantMessage(runtime, session, turn, status);
    } catch (error) {
      // Another engine answered this idempotent message first: the stored answer is the answer.
      const requestId = userMessage?.requestId;
      if (!ConflictError.isInstance(error) || requestId == null) throw error;
      const previous = await findPreviousTurn(runtime.sessionStore, {
        sessionId: session.id,
        requestId,
      });
      if (previous.status !== 'answered') throw error;
      return replayTurn(runtime, sink, previous, false);
    }
    // Small talk is no retrieval attempt to learn from.
    if (!turn.smallTalk) {
      await sideStep(runtime.events, 'learn', () =>
        recordLearningStep(runtime, session, userMessage?.content ?? '', message),
      );
    }
    // Off the reply path: runs after this turn, before the session's next one.
    runtime.afterTurn(session.id, () =>
      sideStep(runtime.events, 'compact', () => compactSession(runtime, session, turn.turnId)),
    );
  }
  return finalResponse(runtime, sink, turn, status);
}

function finalResponse(
  runtime: EngineRuntime,
  sink: PartSink,
  turn: TurnState,
  status: MessageRecord['status'] = 'complete',
): ChatResponse {
  const { events } = runtime;
  const citations = turn.outcome?.citations ?? { generatedIds: [], validIds: [], removed: [] };
  const confidence = confidenceOf(runtime, turn);
  if (!turn.ended) {
    events.emit('citations', { turnId: turn.turnId, ...citations });
    events.emit('confidence', { turnId: turn.turnId, confidence });
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
    createdAt: isoNow(),
  };
  events.emit('metrics', { turnId: turn.turnId, phase: 'turn', ms: totalMs });
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
    mode === 'always' || (mode === 'auto' && runtime.llm.metadata.provider !== EXTRACTIVE_PROVIDER)
  );
}
