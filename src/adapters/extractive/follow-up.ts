/**
 * The extractive model reads a follow-up as a reader of the conversation would: "And which
 * option disables it?" asks "Which option disables it?" (so the model knows a name is asked
 * for), and a question that names nothing after one about Amazon Bedrock is about Bedrock. The
 * conversation is the request's own messages; the resolution is the one retrieval's rewrite
 * uses (`src/text/follow-up.ts`).
 */
import type { LLMMessage, LLMRequest } from '../../ports/llm-provider.js';
import { resolveFollowUp } from '../../text/follow-up.js';

// User-role messages that carry data rather than a question: the sources block, recalled
// earlier messages.
const DATA_MESSAGE = /^\s*<earlier_messages>|<sources>/;

/** Index of the last user message, or -1. */
function lastUserIndex(messages: readonly LLMMessage[]): number {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]!.role !== 'user') index--;
  return index;
}

/** The user's questions before the last user message, oldest first. */
export function earlierQuestions(messages: readonly LLMMessage[]): string[] {
  return messages
    .slice(0, Math.max(lastUserIndex(messages), 0))
    .filter((message) => message.role === 'user' && !DATA_MESSAGE.test(message.content))
    .map((message) => message.content);
}

/**
 * The request with its last user message in standalone form, or the request itself when the
 * message needs nothing from the conversation. The name the message inherits is added to
 * `retrievalQuery`, where its terms weigh less than the user's own.
 */
export function standaloneRequest<T extends Pick<LLMRequest, 'messages' | 'retrievalQuery'>>(
  request: T,
): T {
  const { messages } = request;
  const last = lastUserIndex(messages);
  if (last < 0) return request;
  const resolved = resolveFollowUp(messages[last]!.content, earlierQuestions(messages));
  if (resolved === null) return request;
  const retrievalQuery = [resolved.subject, request.retrievalQuery ?? ''].join(' ').trim();
  return {
    ...request,
    messages: messages.map((message, index) =>
      index === last ? { ...message, content: resolved.question } : message,
    ),
    retrievalQuery: retrievalQuery.length > 0 ? retrievalQuery : undefined,
  };
}
