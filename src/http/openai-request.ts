/**
 * Request parsing of the OpenAI-compatible routes: validates a `POST /v1/chat/completions` body
 * (fields that would change the answer are honoured or refused, see `openai-fields.ts`) and
 * turns its `messages` into the question and the history the engine answers from. Errors name
 * the field in OpenAI's notation (`messages[1].content`).
 */
import type { HistoryTurn } from '../types.js';
import {
  invalidField as invalid,
  isObject,
  maxTokensOf,
  refuseUnsupported,
  temperatureOf,
} from './openai-fields.js';
import { clip } from './errors.js';
import { HttpError } from './request.js';
import { cut } from './ui-chat.js';

/** A validated completion request, as the engine will run it. */
export interface CompletionRequest {
  /** The model id asked for (one of the listed ids). */
  readonly model: string;
  /** The last user message: the question. */
  readonly question: string;
  /** Earlier user and assistant turns, oldest first (system, developer and tool messages left out). */
  readonly history: readonly HistoryTurn[];
  /** Stream the answer. */
  readonly stream: boolean;
  /** Send a usage chunk before `[DONE]`. */
  readonly includeUsage: boolean;
  /** Temperature, when given. */
  readonly temperature: number | undefined;
  /** The answer's length cap in tokens (`max_completion_tokens` / `max_tokens`), when given. */
  readonly maxTokens: number | undefined;
}

/** One message of a request, reduced to its role and text. */
export interface MessageTurn {
  readonly role: string;
  readonly text: string;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** Most earlier turns given to the engine; its own context window keeps fewer. */
const MAX_HISTORY_TURNS = 100;

/**
 * The text of a message's `content`: a string, or an array of `text` parts (joined with a
 * newline). Assistant messages may also have null content (tool calls) and `refusal` parts.
 */
function messageText(content: unknown, role: string, param: string): string {
  if (typeof content === 'string') return content;
  if ((content === null || content === undefined) && role === 'assistant') return '';
  if (!Array.isArray(content)) {
    throw invalid(param, 'must be a string or an array of content parts');
  }
  const texts: string[] = [];
  content.forEach((part: unknown, index) => {
    const at = `${param}[${index}]`;
    if (!isObject(part)) throw invalid(at, 'must be a content part object');
    if (part.type === 'refusal' && role === 'assistant') return;
    if (part.type !== 'text') {
      throw invalid(`${at}.type`, "only 'text' content parts are supported");
    }
    if (typeof part.text !== 'string') throw invalid(`${at}.text`, 'must be a string');
    texts.push(part.text);
  });
  return texts.join('\n');
}

/**
 * Validates an OpenAI chat completion body and turns it into the question and its history.
 * `temperature` and `max_completion_tokens` / `max_tokens` are honoured; a field that would
 * change the answer and cannot (`tools`, `n > 1`, …) is a 400 naming it; fields that only
 * describe the call (`user`, `metadata`, `seed`, …) are accepted.
 */
export function parseCompletionRequest(
  body: Record<string, unknown>,
  limits: { readonly models: readonly string[]; readonly maxMessageLength: number },
): CompletionRequest {
  const { model, messages, stream } = body;
  const options = body.stream_options;
  if (typeof model !== 'string' || model.length === 0) {
    throw invalid('model', 'must be a non-empty string');
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalid('messages', 'must be a non-empty array');
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw invalid('stream', 'must be a boolean');
  }
  if (options !== undefined && options !== null && !isObject(options)) {
    throw invalid('stream_options', 'must be an object');
  }
  const includeUsage = isObject(options) ? options.include_usage : undefined;
  if (includeUsage !== undefined && includeUsage !== null && typeof includeUsage !== 'boolean') {
    throw invalid('stream_options.include_usage', 'must be a boolean');
  }
  refuseUnsupported(body, 'chat');
  const temperature = temperatureOf(body);
  const maxTokens = maxTokensOf(body, ['max_completion_tokens', 'max_tokens']);
  const turns = messages.map((message: unknown, index) => {
    const param = `messages[${index}]`;
    if (!isObject(message)) throw invalid(param, 'must be a message object');
    if (typeof message.role !== 'string' || !ROLES.has(message.role)) {
      throw invalid(`${param}.role`, `must be one of ${[...ROLES].join(', ')}`);
    }
    return {
      role: message.role,
      text: messageText(message.content, message.role, `${param}.content`),
    };
  });
  const { question, history } = conversationOf(turns, limits, (index) => `messages[${index}]`);
  checkModel(model, limits.models);
  return {
    model,
    question,
    history,
    stream: stream === true,
    includeUsage: includeUsage === true,
    temperature,
    maxTokens,
  };
}

/** 404 `model_not_found` unless `model` is listed; the error names a bounded slice of it. */
export function checkModel(model: string, models: readonly string[]): void {
  if (!models.includes(model)) {
    throw new HttpError(404, 'model_not_found', `The model '${clip(model, 64)}' does not exist`);
  }
}

/**
 * The question (the last message, which must be the user's) and the history (earlier user and
 * assistant turns, the last 100, each at most 4× the message limit) of a request's messages;
 * `param` names message `index` in errors.
 */
export function conversationOf(
  turns: readonly MessageTurn[],
  limits: { readonly maxMessageLength: number },
  param: (index: number) => string,
): { question: string; history: HistoryTurn[] } {
  const lastIndex = turns.length - 1;
  const last = turns[lastIndex]!;
  if (last.role !== 'user') {
    throw invalid(`${param(lastIndex)}.role`, 'the last message must be a user message');
  }
  if (last.text.trim().length === 0) {
    throw invalid(`${param(lastIndex)}.content`, 'must not be empty');
  }
  if (last.text.length > limits.maxMessageLength) {
    throw invalid(
      `${param(lastIndex)}.content`,
      `must be at most ${limits.maxMessageLength} characters`,
    );
  }
  // The engine's own system prompt (citation rules, guard) stays in force: system and
  // developer messages are not given to it, nor tool traffic.
  const maxTurnLength = limits.maxMessageLength * 4;
  const history = turns
    .slice(0, lastIndex)
    .filter(
      (turn): turn is { role: 'user' | 'assistant'; text: string } =>
        (turn.role === 'user' || turn.role === 'assistant') && turn.text.trim().length > 0,
    )
    .slice(-MAX_HISTORY_TURNS)
    .map((turn) => ({ role: turn.role, content: cut(turn.text, maxTurnLength) }));
  return { question: last.text, history };
}
