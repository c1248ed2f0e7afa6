/**
 * Idempotent turns: a client-supplied `messageId` (idempotency key) is stored as the user
 * message's `requestId`; the assistant message records the user message it answers in
 * `replyTo`. A retried request with the same key then finds the first turn and returns its
 * result instead of running a second turn — or, when the first attempt stored the user message
 * but never answered it (it failed or broke mid-stream), re-runs the turn for the stored user
 * message instead of storing it twice.
 *
 * Keys are scoped to a session (look-ups are per session). Within one engine, turns on one
 * session are serialized, so a concurrent retry waits for the first attempt and then finds
 * it. Across engines on one store (the load-balanced setup) the store is the arbiter: it
 * holds one user message per key and one whole answer per user message, and rejects the
 * second with `ConflictError`. The request that loses the race for the user message waits
 * for the winner's answer (`waitForAnswer`) and returns it; one that loses the race for the
 * answer returns the stored one.
 *
 * @example
 * ```ts
 * const previous = await findPreviousTurn(store, { sessionId, requestId, message });
 * if (previous.status === 'answered') return replayResponse(previous, { model });
 * const userMessage = previous.status === 'unanswered' ? previous.userMessage : storeNewUserMessage();
 * ```
 * @module
 */
import { ConflictError } from '../../errors/index.js';
import type { Confidence, MessageRecord } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';
import type { Metadata } from '../../ports/common.js';
import type { ChatResponse, Refusal } from '../../types.js';
import { sleep } from '../../util/sleep.js';
import { validateCitations } from '../cite.js';
import { scoreConfidence, type ConfidenceWeights } from '../score.js';

/** What a session holds for an idempotency key. */
export type PreviousTurn =
  | {
      /** No message with this key: run the turn (and store the key with the user message). */
      readonly status: 'new';
    }
  | {
      /** The turn ran to the end: return `replayResponse(previous)`, run nothing. */
      readonly status: 'answered';
      /** The stored user message. */
      readonly userMessage: MessageRecord;
      /** The stored answer (`complete` or `degraded`). */
      readonly reply: MessageRecord;
    }
  | {
      /**
       * The user message is stored but has no whole answer (the first attempt failed, or only a
       * partial `incomplete` answer was kept): run the turn again for this user message without
       * storing it again.
       */
      readonly status: 'unanswered';
      /** The stored user message. */
      readonly userMessage: MessageRecord;
      /** The partial answer of the first attempt, when one was kept. */
      readonly partial: MessageRecord | null;
    };

/** What to look up. */
export interface PreviousTurnQuery {
  /** The session the key belongs to. */
  readonly sessionId: string;
  /** The client's idempotency key (`messageId` of the request). */
  readonly requestId: string;
  /**
   * The retried message text. When given and different from the stored one, the key was
   * reused for another message: `ConflictError`.
   */
  readonly message?: string | undefined;
  /** Cancels the look-up. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Finds the turn a previous request with this idempotency key started: `findMessage` by
 * `requestId`, then its answer by `replyTo`. Rejects with `ConflictError` when the key was
 * used for a different message.
 */
export async function findPreviousTurn(
  store: SessionStore,
  query: PreviousTurnQuery,
): Promise<PreviousTurn> {
  const { sessionId, requestId, signal } = query;
  const userMessage = await store.findMessage(sessionId, { requestId }, { signal });
  if (!userMessage || userMessage.role !== 'user') return { status: 'new' };
  if (query.message !== undefined && query.message !== userMessage.content) {
    throw new ConflictError(
      `messageId '${requestId}' was already used for a different message in session '${sessionId}'`,
    );
  }
  const reply = await store.findMessage(sessionId, { replyTo: userMessage.id }, { signal });
  if (reply && reply.role === 'assistant' && reply.status !== 'incomplete') {
    return { status: 'answered', userMessage, reply };
  }
  return { status: 'unanswered', userMessage, partial: reply ?? null };
}

/** A turn that ran to the end. */
export type AnsweredTurn = Extract<PreviousTurn, { status: 'answered' }>;

/** How long a turn waits for another engine's answer when the model has no timeout (ms). */
export const ANSWER_WAIT_MS = 60_000;

/** How long and how often `waitForAnswer` looks. */
export interface AnswerWaitOptions {
  /** Most time to wait for the answer, in ms. */
  readonly timeoutMs: number;
  /** First pause between look-ups, in ms (doubles up to 1 s; default 25). */
  readonly intervalMs?: number | undefined;
}

/**
 * Waits for the answer to a user message another request stored under this key (the loser
 * of a race between engines on one store): looks the turn up until it is answered, at most
 * `timeoutMs`, then rejects with `ConflictError` ("a turn with this messageId is in
 * progress") rather than answering twice. Rejects with `AbortError` when the query's signal
 * fires, and with `ConflictError` when the key holds a different message.
 */
export async function waitForAnswer(
  store: SessionStore,
  query: PreviousTurnQuery,
  options: AnswerWaitOptions,
): Promise<AnsweredTurn> {
  const deadline = Date.now() + options.timeoutMs;
  let pause = options.intervalMs ?? 25;
  for (;;) {
    const previous = await findPreviousTurn(store, query);
    if (previous.status === 'answered') return previous;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ConflictError(
        `a turn with this messageId ('${query.requestId}') is in progress in session '${query.sessionId}'; retry later`,
      );
    }
    await sleep(Math.min(pause, left), query.signal);
    pause = Math.min(pause * 2, 1000);
  }
}

/** How a replayed response is completed where the stored message lacks a field. */
export interface ReplayOptions {
  /** The model reported in the response (not stored with the message). */
  readonly model: string;
  /** Weights to recompute confidence when the stored message has none. */
  readonly confidenceWeights?: ConfidenceWeights | undefined;
  /** The answered question's turn number in its session (`turnNumberOf`), if known. */
  readonly turnNumber?: number | null | undefined;
}

/**
 * The first attempt's `ChatResponse`, rebuilt from the stored messages. What is not stored
 * is rebuilt or left neutral: citations are re-read from the stored (already validated) text,
 * so `removed` is empty; `usage` is null; `timings` are the stored ones.
 */
export function replayResponse(previous: AnsweredTurn, options: ReplayOptions): ChatResponse {
  const { userMessage, reply } = previous;
  const sources = [...reply.sources];
  const citations = validateCitations(
    reply.content,
    sources.map((source) => source.id),
  ).report;
  const confidence: Confidence =
    reply.confidence ??
    scoreConfidence({ sources: reply.guard ? [] : sources }, options.confidenceWeights);
  return {
    messageId: reply.id,
    userMessageId: userMessage.id,
    sessionId: reply.sessionId,
    text: reply.content,
    sources,
    confidence,
    grounding: null,
    citations: { ...citations, removed: [] },
    guard: reply.guard,
    refused: refusalFromMetadata(reply),
    status: reply.status,
    ended: false,
    timings: reply.timings ?? { retrievalMs: 0, generationMs: 0, totalMs: 0 },
    usage: null,
    model: options.model,
    // Recall is not stored with the answer: a replay reports none.
    recalled: [],
    turnNumber: options.turnNumber ?? null,
    // A replay runs nothing, so it compacted nothing either.
    historyCompacted: false,
    createdAt: reply.createdAt,
  };
}

const REFUSED_BY: readonly Refusal['by'][] = ['guard', 'model', 'judge'];
const REFUSED_REASONS: readonly Refusal['reason'][] = [
  'no-sources',
  'low-similarity',
  'missing-focus',
  'no-answer',
  'unsupported',
];

/** A stored answer's metadata recording its refusal (`refusedBy`, `refusedReason`), if any. */
export function refusalMetadata(refusal: Refusal | null): Metadata {
  return refusal === null ? {} : { refusedBy: refusal.by, refusedReason: refusal.reason };
}

/**
 * The refusal a stored answer recorded. An answer stored before the field existed has none
 * recorded: a guard answer then reads as the guard's (`low-similarity`), any other as none.
 */
export function refusalFromMetadata(reply: MessageRecord): Refusal | null {
  const by = REFUSED_BY.find((value) => value === reply.metadata['refusedBy']);
  const reason = REFUSED_REASONS.find((value) => value === reply.metadata['refusedReason']);
  if (by !== undefined && reason !== undefined) return { by, reason };
  return reply.guard ? { by: 'guard', reason: 'low-similarity' } : null;
}
