/**
 * Request parsing of the OpenAI-compatible routes: validates a `POST /v1/chat/completions` body
 * (fields cortexis does not use are ignored) and turns its `messages` into the question and the
 * history the engine answers from. Errors name the field in OpenAI's notation
 * (`messages[1].content`).
 */
import { ValidationError } from '../errors/index.js';
import type { HistoryTurn } from '../types.js';
import { HttpError } from './request.js';

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
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** Most earlier turns given to the engine; its own context window keeps fewer. */
const MAX_HISTORY_TURNS = 100;

/** A 400 naming the request field (`param`) in OpenAI's notation (`messages[1].content`). */
function invalid(param: string, message: string): ValidationError {
  return new ValidationError(`Invalid body: ${param}: ${message}`, [{ path: param, message }]);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
 * Validates an OpenAI chat completion body (fields cortexis does not use are ignored, as
 * OpenAI clients send many) and turns it into the question and its history.
 */
export function parseCompletionRequest(
  body: Record<string, unknown>,
  limits: { readonly models: readonly string[]; readonly maxMessageLength: number },
): CompletionRequest {
  const { model, messages, stream, n, temperature } = body;
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
  if (n !== undefined && n !== null && n !== 1) throw invalid('n', 'only 1 is supported');
  if (
    temperature !== undefined &&
    temperature !== null &&
    (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))
  ) {
    throw invalid('temperature', 'must be a number between 0 and 2');
  }
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
  const lastIndex = turns.length - 1;
  const last = turns[lastIndex]!;
  if (last.role !== 'user') {
    throw invalid(`messages[${lastIndex}].role`, 'the last message must be a user message');
  }
  if (last.text.trim().length === 0) {
    throw invalid(`messages[${lastIndex}].content`, 'must not be empty');
  }
  if (last.text.length > limits.maxMessageLength) {
    throw invalid(
      `messages[${lastIndex}].content`,
      `must be at most ${limits.maxMessageLength} characters`,
    );
  }
  if (!limits.models.includes(model)) {
    throw new HttpError(404, 'model_not_found', `The model '${model}' does not exist`);
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
    .map((turn) => ({ role: turn.role, content: turn.text.slice(0, maxTurnLength) }));
  return {
    model,
    question: last.text,
    history,
    stream: stream === true,
    includeUsage: includeUsage === true,
    temperature: typeof temperature === 'number' ? temperature : undefined,
  };
}
