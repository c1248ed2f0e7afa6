/**
 * The user's message of a turn: a retried message (same `messageId`) returns the first answer
 * instead of a second turn; otherwise the message is stored first, so that no later failure
 * can lose it.
 */
import { ConflictError } from '../../errors/index.js';
import type { MessageRecord } from '../../ports/chat-records.js';
import type { HistoryTurn } from '../../types.js';
import { isoNow, ulid } from '../../util/ids.js';
import { inSpan, type StageOptions } from '../../util/tracing.js';
import {
  ANSWER_WAIT_MS,
  findPreviousTurn,
  waitForAnswer,
  type AnsweredTurn,
  type PreviousTurnQuery,
} from './idempotency.js';
import type { TurnContext } from './state.js';

/** Span options of the write of a turn's user message. */
const PERSIST_USER: StageOptions = {
  attributes: { 'cortexis.stage': 'persist', 'cortexis.message.role': 'user' },
};

/**
 * The turn's stored user message (null without a session), or the stored turn that answered
 * it already (`replay`: the orchestrator answers with it).
 */
export type UserMessageResult =
  | { readonly userMessage: MessageRecord | null; readonly replay?: undefined }
  | { readonly replay: AnsweredTurn };

/** Finds a retried message's answer, or stores the user's message. */
export async function storeUserMessage(turnContext: TurnContext): Promise<UserMessageResult> {
  const { runtime, request, session, signal, scope, turnSpan } = turnContext;
  const { config, sessionStore } = runtime;
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
      return { replay: previous };
    }
    // Stored but never answered: answer it now, without storing it twice.
    if (previous.status === 'unanswered') userMessage = previous.userMessage;
  }

  // persist the user message first: no later failure can lose it
  if (session && !userMessage) {
    const createdAt = isoNow();
    // A session with no messages yet takes the client's earlier turns as its history (a
    // chat the client kept while the server lost it); one that has messages keeps its own.
    // Their ids are made first, so that they sort before the user message.
    const earlier =
      request.history !== undefined &&
      request.history.length > 0 &&
      (await sessionStore.countMessages(session.id, { signal })) === 0
        ? clientHistory(request.history, session, createdAt)
        : [];
    const message: MessageRecord = {
      id: ulid(),
      sessionId: session.id,
      userId: session.userId,
      role: 'user',
      content: request.message,
      status: 'complete',
      createdAt,
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
        () => sessionStore.appendMessages(session.id, [...earlier, message], undefined, { signal }),
        PERSIST_USER,
      );
    } catch (error) {
      // Another engine on this store stored the key first: its answer is this one's.
      if (!key || !ConflictError.isInstance(error)) throw error;
      const winner = await waitForAnswer(sessionStore, key, {
        timeoutMs: config.resilience.timeoutMs || ANSWER_WAIT_MS,
      });
      turnSpan?.setAttributes({ 'cortexis.replayed': true });
      return { replay: winner };
    }
    userMessage = message;
    runtime.recall.index([userMessage]);
  }
  return { userMessage };
}

/**
 * The client's earlier turns as messages of `session`, before its user message (ids made
 * first, so they sort first); `metadata.clientHistory` marks them as the client's account.
 */
function clientHistory(
  turns: readonly HistoryTurn[],
  session: { readonly id: string; readonly userId: string },
  createdAt: string,
): MessageRecord[] {
  return turns.map((turn) => ({
    id: ulid(),
    sessionId: session.id,
    userId: session.userId,
    role: turn.role,
    content: turn.content,
    status: 'complete',
    createdAt,
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: { clientHistory: true },
    requestId: null,
  }));
}
