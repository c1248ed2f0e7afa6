import type { EngineEmitter, EngineEventName, EngineEvents } from './events.js';
import { CortexisError } from './errors/index.js';

/** One log method: a structured object first, then an optional message (pino's order). */
export type LogMethod = (fields: object, message?: string) => void;

/**
 * A structured logger: pino, or anything with the same four methods (a `pino` logger, a
 * `pino` child logger, or an adapter over winston, bunyan or `console`).
 */
export interface Logger {
  /** Detail of each stage: routes, retrieval, confidence, sessions. */
  readonly debug: LogMethod;
  /** Turns completed, guard answers, summaries, feedback, breaker recovery. */
  readonly info: LogMethod;
  /** Retries, rate limits, an opened breaker, degraded retrieval, turns refused. */
  readonly warn: LogMethod;
  /** Turns failed on the engine's or the provider's side, failed background steps. */
  readonly error: LogMethod;
}

/** Log level of a record. */
type Level = keyof Logger;

/** What an event is logged as: its level, message and fields; null skips it. */
type LogRecord = readonly [Level, string, object] | null;

/** Error codes of requests the caller got wrong (logged as warnings, not errors). */
const CLIENT_CODES: ReadonlySet<string> = new Set([
  'validation_error',
  'not_found',
  'conflict',
  'rate_limited',
  'aborted',
]);

/**
 * How each event is logged. Fields carry ids, counts, scores and durations; never message,
 * query or document text.
 */
const RECORDS: { readonly [E in EngineEventName]: (event: EngineEvents[E]) => LogRecord } = {
  'session.created': (event) => ['debug', 'session created', { sessionId: event.session.id }],
  'session.ended': (event) => [
    'info',
    'session ended',
    { sessionId: event.sessionId, reason: event.reason },
  ],
  'turn.started': (event) => [
    'debug',
    'turn started',
    { turnId: event.turnId, sessionId: event.sessionId },
  ],
  route: (event) => [
    'debug',
    'turn routed',
    { turnId: event.turnId, route: event.route, confidence: event.confidence, k: event.k },
  ],
  retrieval: (event) => {
    const fields = {
      turnId: event.turnId,
      sources: event.ids.length,
      topScore: event.topScore,
      cacheHit: event.cacheHit,
      widened: event.widened,
      rewritten: event.rewritten,
      droppedForBudget: event.droppedForBudget,
      durationMs: event.durationMs,
    };
    return event.error === undefined
      ? ['debug', 'sources retrieved', fields]
      : ['warn', 'retrieval failed; answering without sources', { ...fields, err: event.error }];
  },
  guard: (event) => [
    'info',
    'guard answer given',
    {
      turnId: event.turnId,
      reason: event.reason,
      topScore: event.topScore,
      minSimilarity: event.minSimilarity,
    },
  ],
  citations: (event) => [
    event.removed.length > 0 ? 'info' : 'debug',
    event.removed.length > 0 ? 'invalid citations removed' : 'citations checked',
    {
      turnId: event.turnId,
      cited: event.generatedIds.length,
      valid: event.validIds.length,
      removed: event.removed.length,
    },
  ],
  confidence: (event) => [
    'debug',
    'confidence scored',
    {
      turnId: event.turnId,
      level: event.confidence.level,
      overall: event.confidence.overall,
    },
  ],
  judge: (event) => [
    'debug',
    'answer judged',
    {
      turnId: event.turnId,
      supportedRatio: event.grounding.supportedRatio,
      claims: event.grounding.claims.length,
      removed: event.removed,
      blocked: event.blocked,
      policy: event.policy,
      durationMs: event.durationMs,
    },
  ],
  // Seed 004's outcome events repeat the `recall` event's fields, which is logged already.
  'recall.built': () => null,
  'recall.failed': () => null,
  'recall.disabled': () => null,
  recall: (event) => [
    'debug',
    'earlier messages recalled',
    {
      turnId: event.turnId,
      sessionId: event.sessionId,
      userId: event.userId,
      enabled: event.enabled,
      scope: event.scope,
      found: event.found,
      used: event.messageIds.length,
      contextTokens: event.contextTokens,
      durationMs: event.durationMs,
    },
  ],
  summary: (event) => [
    'info',
    'history summarised',
    {
      turnId: event.turnId,
      sessionId: event.sessionId,
      replacedCount: event.replacedCount,
      summaryId: event.summaryId,
    },
  ],
  feedback: (event) => [
    'info',
    'feedback recorded',
    {
      messageId: event.messageId,
      sessionId: event.sessionId,
      rating: event.rating,
      reward: event.reward,
      boostedChunks: event.boostedChunks,
    },
  ],
  learning: (event) => [
    'debug',
    'learning step recorded',
    {
      turnId: event.turnId,
      trajectoryId: event.trajectoryId,
      stepNumber: event.stepNumber,
      reward: event.reward,
    },
  ],
  retry: (event) => [
    'warn',
    'provider call retried',
    {
      turnId: event.turnId,
      provider: event.provider,
      operation: event.operation,
      attempt: event.attempt,
      delayMs: event.delayMs,
      err: event.error,
    },
  ],
  breaker: (event) => [
    event.state === 'open' ? 'warn' : 'info',
    `circuit breaker ${event.state}`,
    {
      provider: event.provider,
      key: event.key,
      state: event.state,
      previous: event.previous,
      failures: event.failures,
      retryAfterMs: event.retryAfterMs,
    },
  ],
  rateLimit: (event) => [
    'warn',
    'rate limited',
    {
      turnId: event.turnId,
      scope: event.scope,
      key: event.key,
      reason: event.reason,
      retryAfterMs: event.retryAfterMs,
    },
  ],
  'turn.completed': (event) => [
    'info',
    'turn completed',
    {
      turnId: event.turnId,
      sessionId: event.sessionId,
      sources: event.sources.length,
      guard: event.guard,
      durationMs: event.durationMs,
    },
  ],
  'turn.failed': (event) => [
    CLIENT_CODES.has(event.error.code) ? 'warn' : 'error',
    'turn failed',
    {
      turnId: event.turnId,
      sessionId: event.sessionId,
      code: event.error.code,
      retryable: event.error.retryable,
      err: event.error,
    },
  ],
  metrics: (event) =>
    event.phase === 'ingest'
      ? ['info', 'documents ingested', { durationMs: event.ms, ...event.detail }]
      : null,
  error: (event) => [
    'error',
    `${event.where} failed`,
    {
      where: event.where,
      code: CortexisError.isInstance(event.error) ? event.error.code : undefined,
      err: event.error,
    },
  ],
};

/**
 * Logs the engine's events to a structured logger (the engine config's `logger`). Each record
 * has an `event` field with the event name. Returns a function that stops logging.
 */
export function attachLogger(events: EngineEmitter, logger: Logger): () => void {
  const detach = (Object.keys(RECORDS) as EngineEventName[]).map((name) =>
    events.on(name, (event) => {
      const record = (RECORDS[name] as (payload: typeof event) => LogRecord)(event);
      if (record === null) return;
      const [level, message, fields] = record;
      logger[level]({ event: name, ...fields }, message);
    }),
  );
  return () => {
    for (const off of detach) off();
  };
}
