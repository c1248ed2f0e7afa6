/**
 * Where a turn stands in its session (seed 001's `turn_number` and `history_compacted`): the
 * question's number, and whether the history was compacted since the previous answer.
 * @module
 */
import type { MessageRecord } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';

/**
 * Whether a summary was written since the session's last answer: among the session's
 * uncovered messages, newest first, without the current one, a summary comes before any
 * answer. (A summary is stored after the messages it covers, so one written after the last
 * turn is the newest uncovered message but for the new question.)
 */
export function compactedSinceLastAnswer(
  newestFirst: readonly Pick<MessageRecord, 'id' | 'role'>[],
  currentMessageId: string | null,
): boolean {
  for (const message of newestFirst) {
    if (message.id === currentMessageId) continue;
    if (message.role === 'system-summary') return true;
    if (message.role === 'assistant') return false;
  }
  return false;
}

/** Where a turn stands in its session (seed 001's `turn_number`, `history_compacted`). */
export interface TurnPosition {
  readonly turnNumber: number | null;
  readonly historyCompacted: boolean;
}

export const NO_POSITION: TurnPosition = { turnNumber: null, historyCompacted: false };

/** The session's turn count (its user messages, the current one included) and compaction. */
export async function turnPosition(
  store: SessionStore,
  sessionId: string,
  currentMessageId: string | null,
  signal: AbortSignal | undefined,
): Promise<TurnPosition> {
  const [turnNumber, newest] = await Promise.all([
    store.countMessages(sessionId, { role: 'user', signal }),
    // The current question, then the summary (if one was written since) or the last answer.
    store.listMessages(sessionId, { uncoveredOnly: true, order: 'desc', limit: 4, signal }),
  ]);
  return { turnNumber, historyCompacted: compactedSinceLastAnswer(newest, currentMessageId) };
}

/** The number of a stored question in its session (1 for the first). */
export async function turnNumberOf(store: SessionStore, question: MessageRecord): Promise<number> {
  const messages = await store.listMessages(question.sessionId);
  let number = 0;
  for (const message of messages) {
    if (message.role === 'user') number++;
    if (message.id === question.id) break;
  }
  return number;
}
