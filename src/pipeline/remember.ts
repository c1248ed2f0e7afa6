import type { MessageRecord } from '../ports/chat-records.js';
import type { LLMMessage } from '../ports/llm-provider.js';
import type { SessionStore } from '../ports/session-store.js';

/**
 * The conversation as the model sees it: stored messages, oldest first, as role messages.
 * The current user message is excluded (it is sent separately, never twice), incomplete
 * answers are kept (they are what the user saw), and the list starts with a user message.
 */
export function toModelHistory(
  messages: readonly MessageRecord[],
  currentMessageId: string | null,
): LLMMessage[] {
  const history: LLMMessage[] = [];
  for (const message of messages) {
    if (message.id === currentMessageId || message.content.length === 0) continue;
    if (message.role === 'user' || message.role === 'assistant') {
      history.push({ role: message.role, content: message.content });
    } else {
      history.push({ role: 'system', content: message.content });
    }
  }
  while (history.length > 0 && history[0]!.role === 'assistant') history.shift();
  return history;
}

/** Loads the most recent `limit` messages of a session as model history. */
export async function loadRecentHistory(
  store: SessionStore,
  sessionId: string,
  currentMessageId: string | null,
  limit: number,
  signal?: AbortSignal,
): Promise<LLMMessage[]> {
  if (limit === 0) return [];
  // One extra: the current user message is already stored and is left out.
  const recent = await store.listMessages(sessionId, { order: 'desc', limit: limit + 1, signal });
  recent.reverse();
  return toModelHistory(recent, currentMessageId).slice(-limit);
}
