/**
 * The engine: `createChatEngine` and the public `ChatEngine` surface. It wires the parts built
 * in `engine/` (runtime, background work, sessions, documents, feedback) and runs turns
 * (`pipeline/turn.ts`) one at a time per session.
 */
import type { EngineConfig, ResolvedConfig } from './config.js';
import { resolveConfig } from './engine/resolve-config.js';
import { EngineEmitter, type EngineEventName, type EngineListener } from './events.js';
import { createBackground } from './engine/background.js';
import { createDocumentOperations, type IngestOptions } from './engine/documents.js';
import {
  createEngineFeedbackSync,
  createFeedbackLearner,
  createFeedbackOperation,
} from './engine/feedback.js';
import { createEngineParts, createLazyRuntime } from './engine/runtime.js';
import { createErasure, type UserErasureReport } from './engine/erasure.js';
import { createEndSession, createSessionOperations } from './engine/sessions.js';
import { withTurnLease } from './engine/turn-lease.js';
import { runTurn } from './pipeline/turn.js';
import type { FeedbackRecord, SessionRecord, TrajectoryRecord } from './ports/chat-records.js';
import type { SessionPage } from './ports/session-store.js';
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
import { KeyedLock } from './util/keyed-lock.js';
import { attachLogger } from './logger.js';
import { TURN_SPAN, traceEngineCalls, traceOperation } from './util/tracing.js';

export type { IngestOptions, UserErasureReport };

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
  /**
   * Erases a user: every session with its messages and summaries, recall records, feedback,
   * trajectories, the corrections they ingested and their learned-boost events, from every
   * store the engine uses. Returns what was removed. Run it once the user can no longer
   * start turns (a turn running meanwhile may store a message after it).
   *
   * @example
   * ```ts
   * const report = await engine.deleteUser({ userId: 'user-42' });
   * report.messages; // messages removed
   * ```
   */
  deleteUser(params: { userId: string }): Promise<UserErasureReport>;
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
 * Creates a chat engine. With no arguments everything is in memory and offline: hashing
 * embedder, BM25 keyword index, exact vector store, and the extractive model.
 * Throws `ConfigError` naming every invalid field.
 */
export function createChatEngine(config?: EngineConfig): ChatEngine {
  const resolved = resolveConfig(config);
  const events = new EngineEmitter();
  if (resolved.logger) attachLogger(events, resolved.logger);
  const lock = new KeyedLock();
  const parts = createEngineParts(resolved, events);
  const { base } = parts;
  const learnFromFeedback = createFeedbackLearner(parts);

  const background = createBackground(lock, events);
  // Work after a turn (compaction).
  const afterTurn = (sessionId: string, task: () => Promise<void>): void =>
    background.run('after-turn', task, sessionId);

  const feedbackSync = createEngineFeedbackSync(resolved, events, parts, learnFromFeedback);
  if (feedbackSync) background.run('learn', () => feedbackSync.pull());

  const endSession = createEndSession(base, events);
  const lazy = createLazyRuntime(resolved, events, parts, { endSession, afterTurn });
  const { runtime } = lazy;
  const clearTextCaches = (): void => {
    parts.clearQueryCaches();
    lazy.clearCountCache();
  };
  const erasure = createErasure({ resolved, parts, lock, runtime, clearTextCaches });
  const sessions = createSessionOperations({
    resolved,
    events,
    base,
    lock,
    eraseSessionRecords: erasure.eraseSessionRecords,
    endSession,
    clearTextCaches,
  });
  // Sessions a store evicts on its own (`maxSessions`, `idleTtlMs`) are purged the same way in
  // the background, under the session's lock: after a turn still running on it.
  base.sessionStore.onEvict?.((sessionIds) => {
    for (const sessionId of sessionIds) {
      background.run('evict', () => sessions.purgeSession(sessionId), sessionId);
    }
  });

  // Turns on one session run one at a time, in call order; other sessions run in parallel.
  // Across engines sharing the session store, its turn lease orders them (`withTurnLease`).
  const serialized = <T>(request: ChatRequest, task: () => Promise<T>): Promise<T> => {
    const key = typeof request?.sessionId === 'string' ? request.sessionId : undefined;
    return key === undefined || request.mode === 'query'
      ? task()
      : lock.run(key, () => withTurnLease(base.sessionStore, events, key, request.signal, task));
  };

  const engine: ChatEngine = {
    config: resolved,
    ...createDocumentOperations({
      resolved,
      events,
      parts,
      loadTokenizer: lazy.loadTokenizer,
      pullFeedbackIfDue: () => feedbackSync?.pullIfDue(),
    }),
    ...sessions.operations,
    deleteUser: erasure.deleteUser,

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

    feedback: createFeedbackOperation({
      resolved,
      events,
      parts,
      learnFromFeedback,
      feedbackSync,
      ingest: (docs) => engine.ingest(docs),
    }),

    async flush() {
      await background.settled();
      await feedbackSync?.settled();
      const turnRuntime = lazy.loaded();
      if (turnRuntime) await (await turnRuntime).recall.pending();
    },

    on(event, listener) {
      return events.on(event, listener);
    },
  };
  if (resolved.tracer) traceEngineCalls(engine, resolved.tracer, resolved.namespace);
  return engine;
}
