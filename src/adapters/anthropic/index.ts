/**
 * `cortexis/anthropic`: Anthropic's Messages API over `fetch` (no SDK, no `node:` imports).
 * The system prompt — and any `system`-role history message, such as a conversation summary —
 * goes in the top-level `system` parameter; the history is sent as alternating `user` /
 * `assistant` messages starting with `user`. The adapter never retries or times out: it
 * honours `signal` and throws `ProviderError` (`status`, `retryable`, `retryAfterMs`) or
 * `AbortError`.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createAnthropicChat } from 'cortexis/anthropic';
 *
 * const engine = createChatEngine({
 *   llm: createAnthropicChat({ apiKey: process.env.ANTHROPIC_API_KEY, model: 'claude-haiku-4-5' }),
 * });
 * ```
 * @module
 */
import * as z from 'zod/mini';
import { ProviderError, ValidationError } from '../../errors/index.js';
import type {
  FinishReason,
  LLMMessage,
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
  LLMUsage,
} from '../../ports/llm-provider.js';
import {
  abortError,
  parseJson,
  parseResponse,
  postJson,
  readJson,
  streamCutError,
  type FetchFunction,
  type HeaderValues,
} from '../http/post-json.js';
import {
  checkBaseURL,
  checkNonEmpty,
  checkPositiveInteger,
  checkTopP,
  invalidSetting,
} from '../http/settings.js';
import { readSse } from '../http/sse.js';

export type { FetchFunction, HeaderValues } from '../http/post-json.js';

/** Anthropic's API base URL, the default `baseURL`. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** Model used when `model` is not set. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';
/** The `anthropic-version` header sent by default. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Settings of {@link createAnthropicChat}. */
export interface AnthropicChatSettings {
  /** `top_p` of requests that set no `topP` (default: none sent). */
  readonly topP?: number | undefined;
  /** API key, sent as `x-api-key`. Required unless `baseURL` points at a proxy that adds it. */
  readonly apiKey?: string | undefined;
  /** Model id (default `claude-haiku-4-5`). */
  readonly model?: string | undefined;
  /** API base URL, without `/v1` (default `https://api.anthropic.com`). */
  readonly baseURL?: string | undefined;
  /** Provider name in metadata and errors (default `anthropic`). */
  readonly name?: string | undefined;
  /** The `anthropic-version` header (default `2023-06-01`). */
  readonly version?: string | undefined;
  /** Extra headers sent with every request (e.g. `anthropic-beta`); they override the defaults. */
  readonly headers?: HeaderValues | undefined;
  /** The `fetch` to use (default: the global `fetch`). */
  readonly fetch?: FetchFunction | undefined;
  /** Tokens the model reads and writes per call (default 200000, every current Claude model). */
  readonly contextWindow?: number | undefined;
  /** Most tokens the model writes per call; caps `max_tokens` (default: known per model, else 8192). */
  readonly maxOutputTokens?: number | undefined;
  /** `max_tokens` sent when the request sets no `maxTokens` — the API requires one (default 4096). */
  readonly defaultMaxTokens?: number | undefined;
  /** Extra body fields merged into every request (e.g. `{ top_k: 40 }`). */
  readonly body?: Readonly<Record<string, unknown>> | undefined;
}

/** Published output limits of Claude model families (prefix match). */
const MAX_OUTPUT_TOKENS: readonly (readonly [RegExp, number])[] = [
  [/^claude-(sonnet|haiku)-4-5/, 64_000],
  [/^claude-opus-4-5/, 64_000],
  [/^claude-sonnet-4/, 64_000],
  [/^claude-opus-4/, 32_000],
  [/^claude-3-7-sonnet/, 64_000],
  [/^claude-3-5-(sonnet|haiku)/, 8_192],
];

/** Model id prefixes whose output limits `MAX_OUTPUT_TOKENS` knows (`LLMMetadata.supportedModels`). */
export const ANTHROPIC_SUPPORTED_MODELS: readonly string[] = Object.freeze([
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
  'claude-opus-4-5',
  'claude-sonnet-4',
  'claude-opus-4',
  'claude-3-7-sonnet',
  'claude-3-5-sonnet',
  'claude-3-5-haiku',
]);

/** An Anthropic message: role and text. */
export interface AnthropicMessage {
  /** `user` or `assistant`. */
  readonly role: 'user' | 'assistant';
  /** The text. */
  readonly content: string;
}

/** Text of the first message when the history starts with the assistant. */
const CONTINUATION_PROMPT = '(The conversation so far follows.)';

/**
 * Converts a request to the Messages API shape: the system prompt plus every `system`-role
 * message (joined by blank lines) as `system`; consecutive same-role messages merged; a
 * leading assistant message preceded by a short user turn, as the API requires `user` first.
 */
export function toAnthropicMessages(request: Pick<LLMRequest, 'system' | 'messages'>): {
  system: string | undefined;
  messages: AnthropicMessage[];
} {
  const systemParts = request.system?.trim() ? [request.system] : [];
  const messages: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const message of request.messages as readonly LLMMessage[]) {
    if (message.role === 'system') {
      if (message.content.trim()) systemParts.push(message.content);
      continue;
    }
    const last = messages[messages.length - 1];
    if (last !== undefined && last.role === message.role) {
      last.content = `${last.content}\n\n${message.content}`;
    } else {
      messages.push({ role: message.role, content: message.content });
    }
  }
  if (messages[0]?.role === 'assistant') {
    messages.unshift({ role: 'user', content: CONTINUATION_PROMPT });
  }
  return { system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined, messages };
}

const usageSchema = z.nullish(
  z.object({
    input_tokens: z.nullish(z.number()),
    output_tokens: z.nullish(z.number()),
    cache_creation_input_tokens: z.nullish(z.number()),
    cache_read_input_tokens: z.nullish(z.number()),
  }),
);

const messageSchema = z.object({
  content: z.array(z.object({ type: z.string(), text: z.nullish(z.string()) })),
  stop_reason: z.nullish(z.string()),
  usage: usageSchema,
});

const eventSchema = z.object({
  type: z.string(),
  message: z.nullish(z.object({ usage: usageSchema })),
  content_block: z.nullish(z.object({ type: z.string(), text: z.nullish(z.string()) })),
  delta: z.nullish(
    z.object({
      type: z.nullish(z.string()),
      text: z.nullish(z.string()),
      stop_reason: z.nullish(z.string()),
    }),
  ),
  usage: usageSchema,
  error: z.nullish(z.object({ type: z.nullish(z.string()), message: z.nullish(z.string()) })),
});

/** Maps a Messages API `stop_reason` to the port's `FinishReason`. */
export function anthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** HTTP status Anthropic documents for each error type (used for in-stream `error` events). */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

function inputTokens(usage: NonNullable<z.output<typeof usageSchema>>): number {
  // `input_tokens` excludes prompt-cache reads and writes; the model read all three.
  return Math.round(
    (usage.input_tokens ?? 0) +
      (usage.cache_creation_input_tokens ?? 0) +
      (usage.cache_read_input_tokens ?? 0),
  );
}

/**
 * Creates an `LLMProvider` over `POST {baseURL}/v1/messages` (headers `x-api-key`,
 * `anthropic-version`), non-streaming and streaming (`message_start` … `message_stop`).
 */
export function createAnthropicChat(settings: AnthropicChatSettings = {}): LLMProvider {
  const name = settings.name ?? 'anthropic';
  checkNonEmpty('anthropic', 'name', name);
  const baseURL = checkBaseURL(name, 'baseURL', settings.baseURL ?? ANTHROPIC_BASE_URL);
  const apiKey = settings.apiKey === '' ? undefined : settings.apiKey;
  if (apiKey === undefined && new URL(baseURL).hostname === 'api.anthropic.com') {
    throw invalidSetting(name, 'apiKey', "is required for Anthropic's API (set ANTHROPIC_API_KEY)");
  }
  const model = settings.model ?? DEFAULT_ANTHROPIC_MODEL;
  checkNonEmpty(name, 'model', model);
  checkPositiveInteger(name, 'contextWindow', settings.contextWindow);
  checkPositiveInteger(name, 'maxOutputTokens', settings.maxOutputTokens);
  checkPositiveInteger(name, 'defaultMaxTokens', settings.defaultMaxTokens);
  checkTopP(name, 'topP', settings.topP);
  const contextWindow = settings.contextWindow ?? 200_000;
  const maxOutputTokens =
    settings.maxOutputTokens ??
    MAX_OUTPUT_TOKENS.find(([pattern]) => pattern.test(model))?.[1] ??
    8_192;
  const defaultMaxTokens = settings.defaultMaxTokens ?? 4_096;
  const url = `${baseURL}/v1/messages`;
  const headers: HeaderValues = {
    'x-api-key': apiKey,
    'anthropic-version': settings.version ?? ANTHROPIC_VERSION,
    ...Object.fromEntries(
      Object.entries(settings.headers ?? {}).map(([key, value]) => [key.toLowerCase(), value]),
    ),
  };

  const requestBody = (request: LLMRequest, stream: boolean): Record<string, unknown> => {
    const { system, messages } = toAnthropicMessages(request);
    if (messages.length === 0) {
      throw new ValidationError(`${name}: messages must contain a user or assistant message`, [
        { path: 'messages', message: 'must contain a user or assistant message' },
      ]);
    }
    const temperature =
      request.temperature === undefined ? undefined : Math.min(1, Math.max(0, request.temperature));
    const topP = request.topP ?? settings.topP;
    return {
      ...settings.body,
      model,
      max_tokens: Math.min(request.maxTokens ?? defaultMaxTokens, maxOutputTokens),
      ...(system === undefined ? {} : { system }),
      messages,
      ...(temperature === undefined ? {} : { temperature }),
      ...(topP === undefined ? {} : { top_p: topP }),
      ...(stream ? { stream: true } : {}),
    };
  };

  const post = (request: LLMRequest, stream: boolean) =>
    postJson({
      provider: name,
      url,
      headers: stream ? { accept: 'text/event-stream', ...headers } : headers,
      body: requestBody(request, stream),
      fetch: settings.fetch,
      signal: request.signal,
      secrets: [apiKey],
    });

  return {
    name,
    specificationVersion: 'v1',
    metadata: {
      provider: name,
      model,
      type: 'anthropic',
      supportedModels: ANTHROPIC_SUPPORTED_MODELS,
      contextWindow,
      maxOutputTokens,
    },

    async generate(request): Promise<LLMResult> {
      const response = await post(request, false);
      const json = await readJson(response, name, request.signal);
      const message = parseResponse(messageSchema, json, name, 'message');
      const text = message.content
        .filter((block) => block.type === 'text')
        .map((block) => block.text ?? '')
        .join('');
      const usage = message.usage
        ? {
            inputTokens: inputTokens(message.usage),
            outputTokens: Math.round(message.usage.output_tokens ?? 0),
          }
        : undefined;
      return {
        text,
        finishReason: anthropicFinishReason(message.stop_reason),
        ...(usage === undefined ? {} : { usage }),
      };
    },

    async *stream(request): AsyncGenerator<LLMStreamPart> {
      const { signal } = request;
      const response = await post(request, true);
      if (response.body === null) throw streamCutError(name);
      let input: number | undefined;
      let output: number | undefined;
      let stopReason: string | null | undefined;
      let stopped = false;
      for await (const sse of readSse(response.body, { provider: name, signal })) {
        if (sse.data.trim() === '') continue;
        const event = parseResponse(eventSchema, parseJson(sse.data, name), name, 'stream event');
        let text = '';
        switch (event.type) {
          case 'message_start': {
            const usage = event.message?.usage;
            if (usage) {
              input = inputTokens(usage);
              output = usage.output_tokens ?? output;
            }
            break;
          }
          case 'content_block_start':
            if (event.content_block?.type === 'text') text = event.content_block.text ?? '';
            break;
          case 'content_block_delta':
            if (event.delta?.type === 'text_delta') text = event.delta.text ?? '';
            break;
          case 'message_delta':
            if (event.delta?.stop_reason !== undefined) stopReason = event.delta.stop_reason;
            if (event.usage?.output_tokens !== undefined && event.usage.output_tokens !== null) {
              output = event.usage.output_tokens;
            }
            if (event.usage?.input_tokens !== undefined && event.usage.input_tokens !== null) {
              input = inputTokens(event.usage);
            }
            break;
          case 'message_stop':
            stopped = true;
            break;
          case 'error':
            throw streamError(name, event.error);
          default:
            // `ping`, `content_block_stop` and event types added later are ignored.
            break;
        }
        if (stopped) break;
        if (text !== '') {
          if (signal?.aborted) throw abortError(signal);
          yield { type: 'text-delta', text };
        }
      }
      if (signal?.aborted) throw abortError(signal);
      if (!stopped) throw streamCutError(name);
      const usage: LLMUsage | undefined =
        input === undefined && output === undefined
          ? undefined
          : { inputTokens: input ?? 0, outputTokens: Math.round(output ?? 0) };
      yield {
        type: 'finish',
        finishReason: anthropicFinishReason(stopReason),
        ...(usage === undefined ? {} : { usage }),
      };
    },
  };
}

function streamError(
  provider: string,
  error:
    { type?: string | null | undefined; message?: string | null | undefined } | null | undefined,
): ProviderError {
  const type = error?.type ?? 'error';
  const status = ERROR_STATUS[type];
  const retryable = status === undefined ? false : status === 429 || status >= 500;
  return new ProviderError(`${provider} stream error: ${error?.message ?? type} (${type})`, {
    provider,
    status,
    retryable,
  });
}
