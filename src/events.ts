import EventEmitter from 'eventemitter3';
import type { Confidence, SessionRecord, Source } from './ports/chat-records.js';
import type { CortexisError } from './errors/index.js';

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
  /** The retrieval strategy used. */
  readonly route: string;
  /** Sources asked for. */
  readonly k: number;
}

/** Retrieval finished. */
export interface RetrievalEvent {
  /** Turn id, or null for `engine.search`. */
  readonly turnId: string | null;
  /** The query searched (the standalone form of a follow-up). */
  readonly query: string;
  /** Chunk ids returned, best first. */
  readonly ids: readonly string[];
  /** Their scores. */
  readonly scores: readonly number[];
  /** Best score (guard mode compares it with `minSimilarity`). */
  readonly topScore: number;
  /** Whether the query embedding came from the cache. */
  readonly cacheHit: boolean;
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
  /** Why. */
  readonly reason: 'low-similarity' | 'no-sources';
  /** Best score found. */
  readonly topScore: number;
  /** The threshold it missed. */
  readonly minSimilarity: number;
}

/** Citation validation of an answer. */
export interface CitationsEvent {
  /** Turn id. */
  readonly turnId: string;
  /** Labels the answer cited. */
  readonly generatedIds: readonly string[];
  /** Cited labels that name a retrieved source. */
  readonly validIds: readonly string[];
  /** Cited labels removed because they name no retrieved source. */
  readonly removed: readonly string[];
}

/** Confidence of an answer. */
export interface ConfidenceEvent {
  /** Turn id. */
  readonly turnId: string;
  /** The confidence. */
  readonly confidence: Confidence;
}

/** A learning step was recorded. */
export interface LearningEvent {
  /** Turn id. */
  readonly turnId: string;
  /** Trajectory id. */
  readonly trajectoryId: string;
  /** Step number. */
  readonly stepNumber: number;
  /** Reward recorded. */
  readonly reward: number;
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
  learning: LearningEvent;
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
