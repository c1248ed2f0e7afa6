/**
 * What the two OpenAI routes (`/v1/chat/completions`, `/v1/responses`) do with the request
 * fields that are not the conversation: the ones that change the answer are honoured
 * (`temperature`, `max_tokens` / `max_completion_tokens` / `max_output_tokens`) or refused with a
 * 400 naming the field (`tools`, `n > 1`, a JSON response format, …) — never silently ignored.
 * Fields that only describe the call (`user`, `metadata`, `store`, `seed`, …) are accepted, and
 * so are the neutral values of the rest (`top_p: 1`, `frequency_penalty: 0`, `tools: []`), since
 * OpenAI clients send them by default.
 */
import { ValidationError } from '../errors/index.js';

/** A 400 naming the request field (`param`) in OpenAI's notation. */
export function invalidField(param: string, message: string): ValidationError {
  return new ValidationError(`Invalid body: ${param}: ${message}`, [{ path: param, message }]);
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const absent = (value: unknown): boolean => value === undefined || value === null;
const emptyList = (value: unknown): boolean =>
  absent(value) || (Array.isArray(value) && value.length === 0);
const emptyObject = (value: unknown): boolean =>
  absent(value) || (isObject(value) && Object.keys(value).length === 0);

/** A field that cannot be honoured unless it has its neutral value, and why. */
interface Refusal {
  readonly neutral: (value: unknown) => boolean;
  readonly message: string;
}

const NO_TOOLS: Refusal = {
  neutral: emptyList,
  message: 'tools are not supported: cortexis answers from its documents',
};

/** Fields both routes refuse unless neutral. */
const COMMON: Readonly<Record<string, Refusal>> = {
  tools: NO_TOOLS,
  tool_choice: {
    neutral: (value) => absent(value) || value === 'none' || value === 'auto',
    message: "only 'none' or 'auto' is supported (no tools)",
  },
  top_p: {
    neutral: (value) => absent(value) || value === 1,
    message: 'only 1 is supported',
  },
  top_logprobs: {
    neutral: (value) => absent(value) || value === 0,
    message: 'log probabilities are not supported',
  },
  background: {
    neutral: (value) => absent(value) || value === false,
    message: 'background responses are not supported',
  },
};

/** Fields only `/v1/chat/completions` refuses unless neutral. */
const CHAT: Readonly<Record<string, Refusal>> = {
  ...COMMON,
  functions: NO_TOOLS,
  function_call: {
    neutral: (value) => absent(value) || value === 'none' || value === 'auto',
    message: "only 'none' or 'auto' is supported (no functions)",
  },
  n: { neutral: (value) => absent(value) || value === 1, message: 'only 1 is supported' },
  response_format: {
    neutral: (value) => absent(value) || (isObject(value) && value.type === 'text'),
    message: "only { type: 'text' } is supported",
  },
  logprobs: {
    neutral: (value) => absent(value) || value === false,
    message: 'log probabilities are not supported',
  },
  logit_bias: { neutral: emptyObject, message: 'logit bias is not supported' },
  stop: { neutral: emptyList, message: 'stop sequences are not supported' },
  frequency_penalty: {
    neutral: (value) => absent(value) || value === 0,
    message: 'only 0 is supported',
  },
  presence_penalty: {
    neutral: (value) => absent(value) || value === 0,
    message: 'only 0 is supported',
  },
  audio: { neutral: absent, message: 'audio output is not supported' },
  modalities: {
    neutral: (value) =>
      emptyList(value) || (Array.isArray(value) && value.every((item) => item === 'text')),
    message: "only ['text'] is supported",
  },
  prediction: { neutral: absent, message: 'predicted outputs are not supported' },
  web_search_options: { neutral: absent, message: 'web search is not supported' },
};

/** Fields only `/v1/responses` refuses unless neutral. */
const RESPONSES: Readonly<Record<string, Refusal>> = {
  ...COMMON,
  previous_response_id: {
    neutral: absent,
    message:
      'responses are not stored: send the conversation in input, or name a conversation with the conversation header',
  },
  conversation: {
    neutral: absent,
    message: 'use the conversation header to continue a stored conversation',
  },
  prompt: { neutral: absent, message: 'prompt templates are not supported' },
  text: {
    neutral: (value) =>
      absent(value) ||
      (isObject(value) &&
        (absent(value.format) || (isObject(value.format) && value.format.type === 'text'))),
    message: "only the format { type: 'text' } is supported",
  },
  max_tool_calls: { neutral: absent, message: 'tools are not supported' },
};

/** Throws a 400 naming the first field of `body` that would change the answer and cannot. */
export function refuseUnsupported(
  body: Record<string, unknown>,
  route: 'chat' | 'responses',
): void {
  const rules = route === 'chat' ? CHAT : RESPONSES;
  for (const [field, rule] of Object.entries(rules)) {
    if (!rule.neutral(body[field])) throw invalidField(field, rule.message);
  }
}

/** Largest answer length a request may ask for, tokens. */
export const MAX_ANSWER_TOKENS = 200_000;

/** The `temperature` of a request, validated (0–2), or undefined. */
export function temperatureOf(body: Record<string, unknown>): number | undefined {
  const { temperature } = body;
  if (absent(temperature)) return undefined;
  if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2)) {
    throw invalidField('temperature', 'must be a number between 0 and 2');
  }
  return temperature;
}

/**
 * The answer's length cap of a request: the first of `fields` present, a positive integer of
 * at most {@link MAX_ANSWER_TOKENS}; undefined when none is.
 */
export function maxTokensOf(
  body: Record<string, unknown>,
  fields: readonly string[],
): number | undefined {
  for (const field of fields) {
    const value = body[field];
    if (absent(value)) continue;
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < 1 ||
      value > MAX_ANSWER_TOKENS
    ) {
      throw invalidField(field, `must be an integer between 1 and ${MAX_ANSWER_TOKENS}`);
    }
    return value;
  }
  return undefined;
}
