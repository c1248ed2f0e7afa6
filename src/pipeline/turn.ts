/**
 * One chat turn, in the order of DESIGN §2: validate → session → persist the user message →
 * route → retrieve (guard) → remember → pack → generate → cite → score → persist → learn.
 * Every stage lives in its own file next to this one; this file only orchestrates them.
 */
import type { ResolvedConfig } from '../config.js';
import { AbortError, ConflictError, NotFoundError } from '../errors/index.js';
import type { EngineEmitter } from '../events.js';
import type { MessageRecord, SessionRecord, Source } from '../ports/chat-records.js';
import type { MetadataFilter } from '../ports/common.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { KeywordIndex } from '../ports/keyword-index.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { LLMProvider } from '../ports/llm-provider.js';
import type { SessionStore } from '../ports/session-store.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { VectorStore } from '../ports/vector-store.js';
import type { ChatResponse, ChatStreamPart } from '../types.js';
import { isoNow, ulid } from '../util/ids.js';
import type { EmbeddingCache } from './embedding-cache.js';
import { generateAnswer, toCortexisError } from './generate.js';
import { turnReward } from './learn.js';
import { packContext } from './pack.js';
import { buildSystemPrompt } from './prompt.js';
import { loadRecentHistory } from './remember.js';
import {
  retrieve,
  type RetrievalOptions,
  type RetrievalResult,
  type RetrievedChunk,
} from './retrieve.js';
import { scoreConfidence } from './score.js';
import { toPromptSources, toSources } from './sources.js';
import { chatRequestSchema, parseInput } from './validate.js';

/** Everything a turn needs: the resolved config and one adapter per port. */
export interface EngineRuntime {
  readonly config: ResolvedConfig;
  readonly vectorStore: VectorStore;
  readonly keywordIndex: KeywordIndex;
  readonly embedder: EmbeddingProvider;
  readonly embeddingCache: EmbeddingCache;
  readonly llm: LLMProvider;
  readonly sessionStore: SessionStore;
  readonly learningSink: LearningSink;
  readonly tokenizer: Tokenizer;
  readonly events: EngineEmitter;
  /** Ends a session (quit word); shared with `engine.endSession`. */
  readonly endSession: (session: SessionRecord, reason: 'quit' | 'ended') => Promise<void>;
}

/** Retrieval options from the config, for a turn or `engine.search`. */
export function retrievalOptions(
  runtime: Pick<EngineRuntime, 'config' | 'embedder'>,
  request: {
    readonly k: number;
    readonly maxK: number;
    readonly filter?: MetadataFilter | undefined;
    readonly signal?: AbortSignal | undefined;
  },
): RetrievalOptions {
  const { retrieval, namespace } = runtime.config;
  return {
    namespace,
    k: request.k,
    maxK: Math.max(request.k, request.maxK),
    candidates: Math.max(retrieval.candidates, request.maxK),
    threshold: retrieval.threshold,
    filter: request.filter,
    weights: retrieval.weights,
    rrfK: retrieval.rrfK,
    widenSpread: retrieval.widenSpread,
    cosineRange: retrieval.cosineRange ?? runtime.embedder.similarityRange,
    signal: request.signal,
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

    // persist the user message first: no later failure can lose it
    const userMessage: MessageRecord | null = session
      ? {
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
        }
      : null;
    if (session && userMessage) {
      await sessionStore.appendMessages(session.id, [userMessage], undefined, { signal });
    }
    events.emit('turn.started', { turnId, sessionId, userMessageId: userMessage?.id ?? null });

    // route (one strategy until the router lands)
    const k = request.topK ?? settings.topK ?? config.retrieval.topK;
    const useRetrieval = settings.rag ?? true;
    events.emit('route', { turnId, route: useRetrieval ? 'retrieval' : 'chat', k });
    sink({ type: 'route', route: useRetrieval ? 'retrieval' : 'chat', k });

    // retrieve; a failure degrades to a turn without context
    const retrievalStarted = performance.now();
    let retrieval: RetrievalResult | null = null;
    let retrievalError: unknown;
    if (useRetrieval) {
      try {
        retrieval = await retrieve(
          request.message,
          runtime,
          retrievalOptions(runtime, {
            k,
            maxK: request.topK === undefined ? config.retrieval.maxK : k,
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
    const minSimilarity = settings.minSimilarity ?? config.retrieval.minSimilarity;
    const guard =
      retrieval !== null && (retrieval.chunks.length === 0 || retrieval.topScore < minSimilarity);

    if (guard && retrieval) {
      events.emit('retrieval', retrievalEvent(turnId, request.message, retrieval, 0, retrievalMs));
      events.emit('guard', {
        turnId,
        reason: retrieval.chunks.length === 0 ? 'no-sources' : 'low-similarity',
        topScore: retrieval.topScore,
        minSimilarity,
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

    // remember + pack
    const history = session
      ? await loadRecentHistory(
          sessionStore,
          session.id,
          userMessage?.id ?? null,
          config.history.messages,
          signal,
        )
      : [];
    const template = settings.systemPrompt ?? config.prompt.system;
    const maxTokens = settings.maxTokens ?? config.generation.maxTokens;
    const packed = packContext(
      {
        contextWindow: runtime.llm.metadata.contextWindow,
        answerTokens: maxTokens,
        system: buildSystemPrompt(template, []),
        message: request.message,
        history,
        historyTokens: config.history.maxTokens,
        chunks: retrieval?.chunks ?? [],
      },
      runtime.tokenizer,
    );
    const sources = toSources(packed.chunks);
    if (retrieval) {
      events.emit(
        'retrieval',
        retrievalEvent(turnId, request.message, retrieval, packed.droppedChunks, retrievalMs),
      );
    } else if (retrievalError !== undefined) {
      events.emit('retrieval', {
        turnId,
        query: request.message,
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
    const outcome = await generateAnswer(
      runtime.llm,
      {
        system: buildSystemPrompt(template, promptSources),
        messages: [...packed.history, { role: 'user', content: request.message }],
        sources: promptSources,
        maxTokens,
        temperature: request.temperature ?? settings.temperature ?? config.generation.temperature,
        signal,
      },
      sources.map((source) => source.id),
      streaming ? (text) => sink({ type: 'text-delta', text }) : undefined,
    );
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

    const turn: TurnState = {
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
      degraded: retrievalError !== undefined,
    };
    if (outcome.error) {
      if (session && userMessage && outcome.text.length > 0) {
        await storeAssistantMessage(runtime, session, turn, 'incomplete');
        partialMessageId = turn.turnId;
      }
      throw outcome.error;
    }
    if (!streaming) sink({ type: 'text-delta', text: outcome.text });
    return await finishTurn(runtime, sink, session, userMessage, turn);
  } catch (error) {
    const failure = toCortexisError(error, runtime.llm.name, signal);
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
  query: string,
  retrieval: RetrievalResult,
  droppedForBudget: number,
  durationMs: number,
) {
  return {
    turnId,
    query,
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
      llmCertainty: turn.outcome?.certainty,
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
  };
  // One write: the message, its sources and the session totals.
  await runtime.sessionStore.appendMessages(session.id, [message], {
    searchMs: turn.retrievalMs,
    generationMs: turn.generationMs,
  });
  return message;
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
    const message = await storeAssistantMessage(runtime, session, turn, status);
    await sideStep(runtime.events, 'learn', () =>
      recordLearningStep(runtime, session, userMessage?.content ?? '', message),
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

/** Begins the session's trajectory at its first turn, then records this turn as a step. */
async function recordLearningStep(
  runtime: EngineRuntime,
  session: SessionRecord,
  query: string,
  message: MessageRecord,
): Promise<void> {
  const { learningSink, sessionStore, events } = runtime;
  let trajectoryId = session.trajectoryId;
  if (trajectoryId === null) {
    const current = await sessionStore.getSession(session.id);
    trajectoryId = current?.trajectoryId ?? null;
  }
  if (trajectoryId === null) {
    trajectoryId = await learningSink.beginTrajectory({
      sessionId: session.id,
      userId: session.userId,
      initialQuery: query,
      route: 'retrieval',
      startedAt: isoNow(),
    });
    await sessionStore.updateSession(session.id, { trajectoryId, updatedAt: isoNow() });
  }
  const step = await learningSink.recordStep({
    trajectoryId,
    messageId: message.id,
    query,
    chunkIds: message.sources.map((source) => source.chunkId),
    reward: turnReward(message.confidence?.overall ?? 0, message.guard),
    createdAt: isoNow(),
  });
  events.emit('learning', {
    turnId: message.id,
    trajectoryId,
    stepNumber: step.stepNumber,
    reward: step.reward,
  });
}
