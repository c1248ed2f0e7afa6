/**
 * The request side of the AI SDK integration: what `useChat`'s `DefaultChatTransport` POSTs
 * (`{ id, messages, trigger, messageId?, ...body }`), reduced to one chat turn. The server keeps
 * the history, so only the last user message is new input.
 * @module
 */
import * as z from 'zod/mini';
import type { ChatEngine } from '../engine.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import { parseInput } from '../validate.js';
import type { SessionRecord } from '../ports/chat-records.js';

const uiPartSchema = z.looseObject({ type: z.string() });

const uiMessageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(uiPartSchema),
});

/** The body `DefaultChatTransport` sends, plus the turn options a client may set. */
const uiChatBodySchema = z.strictObject({
  /** The chat id: the conversation's id. */
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  /** Every message of the chat (the default transport sends them all). */
  messages: z.optional(z.array(uiMessageSchema).check(z.minLength(1))),
  /** Only the last message (a client that trims the body with `prepareSendMessagesRequest`). */
  message: z.optional(uiMessageSchema),
  /** `submit-message` (default) or `regenerate-message`. */
  trigger: z._default(z.enum(['submit-message', 'regenerate-message']), 'submit-message'),
  /** The assistant message to regenerate, for `regenerate-message` (unused: history is kept). */
  messageId: z.optional(z.string()),
  /** Overrides the route's search depth for this turn. */
  searchDepth: z.optional(z.enum(['shallow', 'medium', 'deep'])),
  /** Overrides the temperature for this turn. */
  temperature: z.optional(z.number()),
  /** Overrides the number of sources for this turn. */
  topK: z.optional(z.number()),
});

/** One chat turn, as a `useChat` request asks for it. */
export interface UIChatTurn {
  /** The chat id, which is the conversation (session) id. */
  readonly chatId: string;
  /** The text of the last user message: the new input. */
  readonly message: string;
  /**
   * The idempotency key of the turn: the last user message's id for `submit-message` (a
   * retried request returns the first answer), none for `regenerate-message` (a new answer).
   */
  readonly messageId: string | undefined;
  /** `submit-message` or `regenerate-message`. */
  readonly trigger: 'submit-message' | 'regenerate-message';
  /** Search depth override, when sent. */
  readonly searchDepth: 'shallow' | 'medium' | 'deep' | undefined;
  /** Temperature override, when sent. */
  readonly temperature: number | undefined;
  /** Source count override, when sent. */
  readonly topK: number | undefined;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid body: ${path}: ${message}`, [{ path, message }]);
}

/**
 * Reads a `useChat` request body (`DefaultChatTransport`'s `{ id, messages, trigger,
 * messageId? }`, or `{ id, message }` from a client that sends only its last message) as one
 * turn: the text parts of the last message, which must be the user's. Earlier messages are
 * ignored — the server keeps the history — and so are `system` messages: a client never sets
 * the prompt. Throws `ValidationError` naming the field.
 *
 * @example
 * ```ts
 * const turn = parseUIChatRequest(await request.json(), { maxMessageLength: 4000 });
 * engine.stream({ sessionId: turn.chatId, userId, message: turn.message, messageId: turn.messageId });
 * ```
 */
export function parseUIChatRequest(
  body: unknown,
  options: { readonly maxMessageLength?: number | undefined } = {},
): UIChatTurn {
  const input = parseInput(uiChatBodySchema, body, 'body');
  if (input.messages !== undefined && input.message !== undefined) {
    throw invalid('message', 'send either messages or message, not both');
  }
  const last = input.message ?? input.messages?.at(-1);
  const path = input.message ? 'message' : `messages.${(input.messages?.length ?? 1) - 1}`;
  if (!last) throw invalid('messages', 'required');
  if (last.role !== 'user')
    throw invalid(`${path}.role`, 'the last message must be a user message');
  const message = last.parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
  if (message.trim().length === 0) throw invalid(`${path}.parts`, 'must contain text');
  const maxLength = options.maxMessageLength;
  if (maxLength !== undefined && message.length > maxLength) {
    throw invalid(`${path}.parts`, `text must be at most ${maxLength} characters`);
  }
  const regenerate = input.trigger === 'regenerate-message';
  return {
    chatId: input.id,
    message,
    messageId: regenerate || last.id.length === 0 ? undefined : last.id,
    trigger: input.trigger,
    searchDepth: input.searchDepth,
    temperature: input.temperature,
    topK: input.topK,
  };
}

/**
 * The user's conversation with `chatId`, created for them on first use (`onCreate` runs first,
 * e.g. to count it in a rate limit). Another user's conversation is `NotFoundError`, exactly as
 * a missing one that could not be created; an ended one is `ConflictError`.
 */
export async function openUIChat(
  engine: ChatEngine,
  chatId: string,
  userId: string,
  onCreate?: () => Promise<void>,
): Promise<SessionRecord> {
  let session: SessionRecord;
  try {
    session = await engine.getSession({ sessionId: chatId, userId });
  } catch (error) {
    if (!NotFoundError.isInstance(error)) throw error;
    await onCreate?.();
    try {
      session = await engine.createSession({ id: chatId, userId });
    } catch (createError) {
      if (!ConflictError.isInstance(createError)) throw createError;
      // Taken: by a concurrent first request of this user (fine), or by someone else (404).
      session = await engine.getSession({ sessionId: chatId, userId });
    }
  }
  if (session.status !== 'active') {
    throw new ConflictError('This conversation has ended; start a new chat');
  }
  return session;
}
