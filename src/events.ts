import EventEmitter from 'eventemitter3';
import type { Confidence, SessionRecord, Source } from './ports/chat-records.js';
import type { CortexisError } from './errors/index.js';
import type { Grounding } from './pipeline/judge.js';
import type { RetrievalStrategy } from './pipeline/route.js';
import type { SummaryEvent } from './pipeline/compact.js';
import type { LearningEvent } from './pipeline/learn.js';

export type { LearningEvent, SummaryEvent };

/** A session was created. */
export interface SessionCreatedEvent {
  /** The new session. */
  readonly session: SessionRecord;
}

/** A session ended (quit word or `endSession`). */
export interface SessionEndedEvent {
  /** The session id. */
  readonly sessionId: string;
  /** Why it ended. */
  readonly reason: 'quit' | 'ended';
}

/** A turn started. */
export interface TurnStartedEvent {
  /** Turn id (the assistant message id it will produce). */
  readonly turnId: string;
  /** Session id, or null for a stateless query. */
  readonly sessionId: string | null;
  /** The user message id, or null for a stateless query. */
  readonly userMessageId: string | null;
}

/** The route chosen for a turn. */
export interface RouteEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The conversation (session id), or null for a stateless query. */
  readonly sessionId: string | null;
  /** The route: an intent (`retrieval`, `relational`, `synthesis`, `hybrid`), or `small-talk` / `chat`. */
  readonly route: string;
  /** How clearly the intent won, in [0, 1] (1 for fixed routes). */
  readonly confidence: number;
  /** Sources asked for. */
  readonly k: number;
  /** The retrieval strategy, or null when the route does not retrieve. */
  readonly strategy: RetrievalStrategy | null;
}

/** Retrieval finished. */
export interface RetrievalEvent {
  /** Turn id, or null for `engine.search`. */
  readonly turnId: string | null;
  /** The conversation (session id), or null for a stateless query. */
  readonly sessionId: string | null;
  /** The query searched (the standalone form of a follow-up). */
  readonly query: string;
  /** Whether `query` is a rewrite of the user's follow-up. */
  readonly rewritten?: boolean | undefined;
  /** How it was rewritten. */
  readonly rewriteMethod?: 'none' | 'offline' | 'llm' | undefined;
  /** Chunk ids returned, best first. */
  readonly ids: readonly string[];
  /** Their scores. */
  readonly scores: readonly number[];
  /** Best score (guard mode compares it with `minSimilarity`). */
  readonly topScore: number;
  /** Whether the query embedding came from the cache. */
  readonly cacheHit: boolean;
  /** Whether the candidate lists came from the search-results cache (`retrieval.cache`). */
  readonly searchCacheHit: boolean;
  /** Whether adaptive k widened the result. */
  readonly widened: boolean;
  /** Chunks dropped to fit the context budget. */
  readonly droppedForBudget: number;
  /** Retrieval time, ms. */
  readonly durationMs: number;
  /** Set when retrieval failed and the turn continues without context. */
  readonly error?: string | undefined;
}

/** Guard mode answered instead of the model. */
export interface GuardEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The conversation (session id), or null for a stateless query. */
  readonly sessionId: string | null;
  /** Why: nothing relevant retrieved, or the judge found too little of the answer supported. */
  readonly reason: 'low-similarity' | 'no-sources' | 'missing-focus' | 'judge';
  /** Best score found. */
  readonly topScore: number;
  /** The threshold it missed: `minSimilarity` when set, else the adaptive guard's cut on `evidence`. */
  readonly minSimilarity: number;
  /** What was compared with it: the adaptive guard's answer probability, or `topScore`. */
  readonly evidence?: number | undefined;
  /** Whether the index-adaptive guard decided (no `minSimilarity` set). */
  readonly adaptive?: boolean | undefined;
}

/** Citation validation of an answer. */
export interface CitationsEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The conversation (session id), or null for a stateless query. */
  readonly sessionId: string | null;
  /** Labels the answer cited. */
  readonly generatedIds: readonly string[];
  /** Cited labels that name a retrieved source. */
  readonly validIds: readonly string[];
  /** Cited labels removed because they name no retrieved source. */
  readonly removed: readonly string[];
}

/**
 * Semantic recall ran for a turn (seed 004's RAG log entry): what it found and what reached the
 * prompt. Emitted for every chat-mode turn that reaches recall, also when it found nothing.
 */
export interface RecallEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The conversation (session id). */
  readonly sessionId: string;
  /** The user whose messages were searched. */
  readonly userId: string;
  /** Whether recall is enabled (`config.recall.enabled`). */
  readonly enabled: boolean;
  /**
   * Whether the search failed (seed 004 reports the turn as recall-disabled then): the turn
   * went on without recalled messages; the `error` event has the cause.
   */
  readonly failed: boolean;
  /** `session` (this conversation) or `user` (all of the user's conversations). */
  readonly scope: 'session' | 'user';
  /** Characters of the query recall searched with. */
  readonly messageLength: number;
  /** Earlier messages found above the similarity floor. */
  readonly found: number;
  /** Of those, the ones that reached the prompt (within the token budget), best first. */
  readonly messageIds: readonly string[];
  /** Tokens of the recalled text in the prompt. */
  readonly contextTokens: number;
  /** Characters of the recalled text in the prompt (seed 004 `contextLength`). */
  readonly contextLength: number;
  /** Duration of the search, ms. */
  readonly durationMs: number;
}

/**
 * Seed 004's RAG log events, in the engine's naming: after each `recall` event, exactly one of
 * `recall.built` (`rag_context_built`: the search ran, whatever it found), `recall.failed`
 * (`rag_search_failed`: the search failed; the turn went on without recalled messages) or
 * `recall.disabled` (`rag_disabled`: `recall.enabled` is false), with the same fields.
 */
export type RecallOutcomeEvent = RecallEvent;

/** Confidence of an answer. */
export interface ConfidenceEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The conversation (session id), or null for a stateless query. */
  readonly sessionId: string | null;
  /** The confidence. */
  readonly confidence: Confidence;
}

/** The grounding judge checked an answer's claims. */
export interface JudgeEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The conversation (session id), or null for a stateless query. */
  readonly sessionId: string | null;
  /** Per-claim grounding. */
  readonly grounding: Grounding;
  /** Policy applied. */
  readonly policy: 'annotate' | 'remove' | 'block';
  /** Claims removed (policy `remove`). */
  readonly removed: number;
  /** True when the answer was replaced by the guard answer (policy `block`). */
  readonly blocked: boolean;
  /** Duration, ms. */
  readonly durationMs: number;
}

/** A user rated an answer. */
export interface FeedbackEvent {
  /** The assistant message rated. */
  readonly messageId: string;
  /** Its session. */
  readonly sessionId: string;
  /** The rating. */
  readonly rating: 'good' | 'neutral' | 'bad';
  /** The reward it became, in [-1, 1]. */
  readonly reward: number;
  /** Sources whose learned boost changed. */
  readonly boostedChunks: number;
}

/** A failed provider call is about to be retried. */
export interface RetryEvent {
  /** Turn id, or null outside a turn. */
  readonly turnId: string | null;
  /** Provider name. */
  readonly provider: string;
  /** The call retried. */
  readonly operation: 'generate' | 'stream' | 'embed';
  /** 1 for the first retry (the second attempt). */
  readonly attempt: number;
  /** Wait before it, ms (the provider's `Retry-After` when it sent one). */
  readonly delayMs: number;
  /** The error of the attempt that failed. */
  readonly error: unknown;
  /** The conversation (session id) when the event belongs to one. */
  readonly sessionId?: string | null | undefined;
}

/** A circuit breaker changed state. */
export interface BreakerEvent {
  /** Provider name. */
  readonly provider: string;
  /** The breaker key (the provider, or a conversation). */
  readonly key: string;
  /** The new state. */
  readonly state: 'closed' | 'open' | 'half-open';
  /** The state before. */
  readonly previous: 'closed' | 'open' | 'half-open';
  /** Failures counted in the window. */
  readonly failures: number;
  /** Until a trial call is let through, ms (0 unless open). */
  readonly retryAfterMs: number;
}

/** A request was rate limited: by this engine's limiter, or by the provider (HTTP 429). */
export interface RateLimitEvent {
  /** Turn id, or null outside a turn. */
  readonly turnId: string | null;
  /** Who limited: the engine's limiter, the HTTP handler's, or the model provider. */
  readonly scope: 'engine' | 'http' | 'provider';
  /** The limited key (`rateLimitKey` of budget and user or IP, or the provider's breaker key). */
  readonly key: string;
  /** Too many in the window, messages too close together, or the provider's 429. */
  readonly reason: 'window' | 'flood' | 'provider';
  /** How long to wait, ms. */
  readonly retryAfterMs: number;
  /** The client's IP (HTTP handler with `clientIp`), when known. */
  readonly ip?: string | undefined;
  /** The conversation (session id) when the event belongs to one. */
  readonly sessionId?: string | null | undefined;
}

/** A turn finished. */
export interface TurnCompletedEvent {
  /** Turn id (= assistant message id). */
  readonly turnId: string;
  /** Session id, or null for a stateless query. */
  readonly sessionId: string | null;
  /** Sources used. */
  readonly sources: readonly Source[];
  /** Whether guard mode answered. */
  readonly guard: boolean;
  /** Whole turn, ms. */
  readonly durationMs: number;
}

/** A turn failed with an error. */
export interface TurnFailedEvent {
  /** Turn id. */
  readonly turnId: string;
  /** Session id, or null for a stateless query. */
  readonly sessionId: string | null;
  /** The error. */
  readonly error: CortexisError;
}

/** Timing of one phase. */
export interface MetricsEvent {
  /** Turn id, or null outside a turn (ingestion). */
  readonly turnId: string | null;
  /** Phase name: `retrieve`, `generate`, `persist`, `turn`, `ingest`, … */
  readonly phase: string;
  /** Duration, ms. */
  readonly ms: number;
  /** Extra numbers of the phase (token counts, items). */
  readonly detail?: Readonly<Record<string, number>> | undefined;
  /** The conversation (session id) when the event belongs to one. */
  readonly sessionId?: string | null | undefined;
}

/** A non-fatal error (a failed side step, a listener that threw). */
export interface ErrorEvent {
  /** Where it happened. */
  readonly where: string;
  /** The error. */
  readonly error: unknown;
}

/** Every event the engine emits, by name. */
export interface EngineEvents {
  'session.created': SessionCreatedEvent;
  'session.ended': SessionEndedEvent;
  'turn.started': TurnStartedEvent;
  route: RouteEvent;
  retrieval: RetrievalEvent;
  guard: GuardEvent;
  citations: CitationsEvent;
  confidence: ConfidenceEvent;
  judge: JudgeEvent;
  recall: RecallEvent;
  'recall.built': RecallOutcomeEvent;
  'recall.failed': RecallOutcomeEvent;
  'recall.disabled': RecallOutcomeEvent;
  summary: SummaryEvent;
  feedback: FeedbackEvent;
  learning: LearningEvent;
  retry: RetryEvent;
  breaker: BreakerEvent;
  rateLimit: RateLimitEvent;
  'turn.completed': TurnCompletedEvent;
  'turn.failed': TurnFailedEvent;
  metrics: MetricsEvent;
  error: ErrorEvent;
}

/** Name of an engine event. */
export type EngineEventName = keyof EngineEvents;

/** A listener of one event. */
export type EngineListener<E extends EngineEventName> = (event: EngineEvents[E]) => void;

/**
 * Typed event bus. `emit` never throws: a listener that throws is reported as an `error`
 * event (and a throwing `error` listener is ignored), so listeners can never break a turn.
 */
export class EngineEmitter {
  readonly #emitter = new EventEmitter();

  /** Adds a listener; returns a function that removes it. */
  on<E extends EngineEventName>(event: E, listener: EngineListener<E>): () => void {
    const wrapped = (payload: EngineEvents[E]): void => {
      try {
        listener(payload);
      } catch (error) {
        if (event !== 'error') this.emit('error', { where: `listener:${event}`, error });
      }
    };
    this.#emitter.on(event, wrapped);
    return () => {
      this.#emitter.off(event, wrapped);
    };
  }

  /** Adds a listener called once. */
  once<E extends EngineEventName>(event: E, listener: EngineListener<E>): () => void {
    const off = this.on(event, (payload) => {
      off();
      listener(payload);
    });
    return off;
  }

  /** Emits an event to every listener; never throws. */
  emit<E extends EngineEventName>(event: E, payload: EngineEvents[E]): void {
    this.#emitter.emit(event, payload);
  }

  /** Whether anything listens to the event (skip building costly payloads otherwise). */
  has(event: EngineEventName): boolean {
    return this.#emitter.listenerCount(event) > 0;
  }
}
