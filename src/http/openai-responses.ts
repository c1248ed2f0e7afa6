/**
 * The OpenAI Responses API of the OpenAI-compatible routes, `POST /v1/responses`: the request
 * (`input` as a string or message items, `instructions`, `max_output_tokens`, `temperature`,
 * `stream`) reduced to a turn, and the `response` object the `openai` client's
 * `responses.create` returns (`output_text` is derived from it by the client). The streamed form
 * is in `openai-responses-stream.ts`.
 */
import type { ChatResponse } from '../types.js';
import {
  invalidField as invalid,
  isObject,
  maxTokensOf,
  refuseUnsupported,
  temperatureOf,
} from './openai-fields.js';
import { checkModel, conversationOf, type CompletionRequest } from './openai-request.js';
import { extensionOf, usageOf, type TokenCounter } from './openai-response.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant']);

/** The text of one input message's `content`: a string, or `input_text` / `output_text` parts. */
function contentText(content: unknown, role: string, param: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    throw invalid(param, 'must be a string or an array of content parts');
  }
  const texts: string[] = [];
  content.forEach((part: unknown, index) => {
    const at = `${param}[${index}]`;
    if (!isObject(part)) throw invalid(at, 'must be a content part object');
    if (part.type === 'refusal' && role === 'assistant') return;
    if (part.type !== 'input_text' && part.type !== 'output_text') {
      throw invalid(`${at}.type`, "only 'input_text' and 'output_text' parts are supported");
    }
    if (typeof part.text !== 'string') throw invalid(`${at}.text`, 'must be a string');
    texts.push(part.text);
  });
  return texts.join('\n');
}

/** The `input` of a request as role and text per message. */
function inputTurns(input: unknown): { role: string; text: string }[] {
  if (typeof input === 'string') return [{ role: 'user', text: input }];
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid('input', 'must be a string or a non-empty array of messages');
  }
  return input.map((item: unknown, index) => {
    const param = `input[${index}]`;
    if (!isObject(item)) throw invalid(param, 'must be a message object');
    if (item.type !== undefined && item.type !== 'message') {
      throw invalid(`${param}.type`, "only 'message' items are supported");
    }
    if (typeof item.role !== 'string' || !ROLES.has(item.role)) {
      throw invalid(`${param}.role`, `must be one of ${[...ROLES].join(', ')}`);
    }
    return { role: item.role, text: contentText(item.content, item.role, `${param}.content`) };
  });
}

/**
 * Validates a Responses API body and turns it into the question and its history (earlier user
 * and assistant messages of `input`). `temperature` and `max_output_tokens` are honoured;
 * `instructions` and system or developer messages are left out, as in `/v1/chat/completions`
 * (the engine's prompt stays in force); a field that would change the answer and cannot
 * (`tools`, `previous_response_id`, a JSON text format, …) is a 400 naming it.
 */
export function parseResponsesRequest(
  body: Record<string, unknown>,
  limits: { readonly models: readonly string[]; readonly maxMessageLength: number },
): CompletionRequest {
  const { model, stream, instructions } = body;
  if (typeof model !== 'string' || model.length === 0) {
    throw invalid('model', 'must be a non-empty string');
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw invalid('stream', 'must be a boolean');
  }
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string') {
    throw invalid('instructions', 'must be a string');
  }
  refuseUnsupported(body, 'responses');
  const temperature = temperatureOf(body);
  const maxTokens = maxTokensOf(body, ['max_output_tokens']);
  const turns = inputTurns(body.input);
  const { question, history } = conversationOf(turns, limits, (index) =>
    typeof body.input === 'string' ? 'input' : `input[${index}]`,
  );
  checkModel(model, limits.models);
  return {
    model,
    question,
    history,
    stream: stream === true,
    includeUsage: false,
    temperature,
    maxTokens,
  };
}

/** What every form of one response shares. */
export interface ResponseHead {
  /** `resp_…`. */
  readonly id: string;
  /** `msg_…`: the id of the one output message. */
  readonly messageId: string;
  /** Seconds since the epoch. */
  readonly createdAt: number;
  readonly parsed: CompletionRequest;
}

/** The one output message of a response. */
export function outputMessage(
  head: ResponseHead,
  text: string,
  status: 'in_progress' | 'completed' | 'incomplete',
) {
  return {
    type: 'message' as const,
    id: head.messageId,
    status,
    role: 'assistant' as const,
    content: status === 'in_progress' ? [] : [outputText(text)],
  };
}

/** An `output_text` content part. */
export function outputText(text: string) {
  return { type: 'output_text' as const, text, annotations: [], logprobs: [] };
}

/**
 * A `response` object: `in_progress` with no output (the start of a stream), `completed` with
 * the answer, its usage and the `cortexis` extension field, or `failed` with a client-safe error.
 */
export async function responseObject(
  head: ResponseHead,
  state:
    | { readonly status: 'in_progress' }
    | { readonly status: 'completed'; readonly response: ChatResponse }
    | { readonly status: 'failed'; readonly error: { code: string; message: string } },
  tokenizer: TokenCounter,
): Promise<Record<string, unknown>> {
  const { parsed } = head;
  const base = {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    status: state.status,
    background: false,
    error: state.status === 'failed' ? state.error : null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: parsed.maxTokens ?? null,
    model: parsed.model,
    output: [] as unknown[],
    parallel_tool_calls: false,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: parsed.temperature ?? null,
    text: { format: { type: 'text' } },
    tool_choice: 'none',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: null as unknown,
    metadata: {},
  };
  if (state.status !== 'completed') return base;
  const { response } = state;
  const { usage, kind } = await usageOf(response, parsed, tokenizer);
  return {
    ...base,
    output: [outputMessage(head, response.text, 'completed')],
    usage: {
      input_tokens: usage.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.total_tokens,
    },
    cortexis: extensionOf(response, kind),
  };
}
