/**
 * The request side of the AI SDK integration: what `useChat`'s `DefaultChatTransport` POSTs
 * (`{ id, messages, trigger, messageId?, ...body }`), reduced to one chat turn. The server keeps
 * the history, so only the last user message is new input — unless the server has none for the
 * chat (a restarted server, a recycled instance, a chat restored from the browser): then the
 * earlier messages the client sent become the conversation's history.
 * @module
 */
import * as z from 'zod/mini';
import type { ChatEngine } from '../engine.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import { intRange, range } from '../util/schema.js';
import { parseInput, unstorableReason } from '../validate.js';
import type { SessionRecord } from '../ports/chat-records.js';
import type { HistoryTurn } from '../types.js';

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
  temperature: z.optional(range(0, 2)),
  /** Overrides the number of sources for this turn. */
  topK: z.optional(intRange(1, 50)),
});

/** Most earlier messages taken as the history of a chat the server does not know. */
export const MAX_UI_HISTORY_TURNS = 100;

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
  /** Where the last message is in the body (`messages.3`, or `message`), for error paths. */
  readonly lastPath: string;
  /**
   * The earlier user and assistant messages the client sent, oldest first (at most
   * `MAX_UI_HISTORY_TURNS` (100), each at most 4× the message limit): the history of a chat the
   * server has no messages for. Empty when the client sent only its last message.
   */
  readonly history: readonly HistoryTurn[];
}

/** At most `max` UTF-16 units of `text`, never ending in half a surrogate pair. */
export function cut(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** The text parts of a UI message, joined with a newline. */
function textOf(parts: readonly { readonly type: string; readonly [key: string]: unknown }[]) {
  return parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid body: ${path}: ${message}`, [{ path, message }]);
}

/**
 * Reads a `useChat` request body (`DefaultChatTransport`'s `{ id, messages, trigger,
 * messageId? }`, or `{ id, message }` from a client that sends only its last message) as one
 * turn: the text parts of the last message, which must be the user's. Earlier user and
 * assistant messages come back as `history`, which the route uses only for a chat the server
 * has no messages of (it keeps the history otherwise); `system` messages are left out: a client
 * never sets the prompt. Throws `ValidationError` naming the field, for anything the engine
 * would refuse (a NUL, a lone surrogate, `topK` or `temperature` out of range).
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
  const message = textOf(last.parts);
  if (message.trim().length === 0) throw invalid(`${path}.parts`, 'must contain text');
  const maxLength = options.maxMessageLength;
  if (maxLength !== undefined && message.length > maxLength) {
    throw invalid(`${path}.parts`, `text must be at most ${maxLength} characters`);
  }
  const unstorable = unstorableReason(message);
  if (unstorable !== undefined) throw invalid(`${path}.parts`, unstorable);
  const history = earlierTurns(input.messages ?? [], maxLength);
  const regenerate = input.trigger === 'regenerate-message';
  return {
    chatId: input.id,
    message,
    messageId: regenerate || last.id.length === 0 ? undefined : last.id,
    trigger: input.trigger,
    searchDepth: input.searchDepth,
    temperature: input.temperature,
    topK: input.topK,
    lastPath: path,
    history,
  };
}

/**
 * The user and assistant messages before the last one, as history turns: system messages and
 * messages without text are left out, the last `MAX_UI_HISTORY_TURNS` (100) kept, each cut to
 * 4× the message limit (what the engine accepts as history). A NUL or a lone surrogate is a 400
 * naming the message, as in the last one.
 */
function earlierTurns(
  messages: readonly z.infer<typeof uiMessageSchema>[],
  maxLength: number | undefined,
): HistoryTurn[] {
  const maxTurnLength = maxLength === undefined ? undefined : maxLength * 4;
  const turns: HistoryTurn[] = [];
  const first = Math.max(0, messages.length - 1 - MAX_UI_HISTORY_TURNS);
  for (let index = first; index < messages.length - 1; index += 1) {
    const message = messages[index]!;
    if (message.role === 'system') continue;
    const text = textOf(message.parts);
    if (text.trim().length === 0) continue;
    const unstorable = unstorableReason(text);
    if (unstorable !== undefined) throw invalid(`messages.${index}.parts`, unstorable);
    turns.push({ role: message.role, content: cut(text, maxTurnLength) });
  }
  return turns;
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
