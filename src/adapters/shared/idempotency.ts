/**
 * The idempotency rules every session store enforces in `appendMessages`: what a batch claims
 * (user messages' `requestId`s, the messages its answers reply to) and the conflicts raised when
 * a session already holds a claim.
 */
import { ConflictError } from '../../errors/index.js';
import type { MessageRecord } from '../../ports/chat-records.js';

/**
 * What a batch claims that a session holds once (the `appendMessages` contract): the
 * idempotency keys (`requestId`) of its user messages, and the user messages its answers
 * reply to (a message with a whole — `complete` or `degraded` — answer takes no further
 * answer). `ConflictError` when the batch itself claims one twice. Shared by every session
 * store; each checks the claims against what it holds.
 */
export function idempotencyClaims(
  sessionId: string,
  batch: readonly MessageRecord[],
): { requestIds: string[]; replies: string[] } {
  const requestIds: string[] = [];
  const replies: string[] = [];
  const answered = new Set<string>();
  for (const message of batch) {
    if (message.role === 'user' && message.requestId != null) {
      if (requestIds.includes(message.requestId)) {
        throw requestIdTaken(sessionId, message.requestId);
      }
      requestIds.push(message.requestId);
    }
    if (message.role === 'assistant' && message.replyTo != null) {
      if (answered.has(message.replyTo)) throw alreadyAnswered(sessionId, message.replyTo);
      if (!replies.includes(message.replyTo)) replies.push(message.replyTo);
      if (message.status !== 'incomplete') answered.add(message.replyTo);
    }
  }
  return { requestIds, replies };
}

/** The `ConflictError` of a user message whose idempotency key the session already holds. */
export function requestIdTaken(sessionId: string, requestId: string): ConflictError {
  return new ConflictError(
    `a user message with messageId '${requestId}' is already stored in session '${sessionId}'`,
  );
}

/** The `ConflictError` of a second whole answer to one user message. */
export function alreadyAnswered(sessionId: string, messageId: string): ConflictError {
  return new ConflictError(
    `message '${messageId}' of session '${sessionId}' already has an answer`,
  );
}
