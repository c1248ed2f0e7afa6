/**
 * The OpenAI chat adapter: `createOpenAIChat`, an `LLMProvider` over
 * `POST {baseURL}/chat/completions`, with its settings, the known context windows of OpenAI
 * model families and the request body it sends.
 */
import { ProviderError, ValidationError } from '../../errors/index.js';
import type {
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
} from '../../ports/llm-provider.js';
import { parseResponse, postJson, readJson, streamCutError } from '../http/post-json.js';
import { checkPositiveInteger, checkTopP } from '../http/settings.js';
import { readChatStream } from './chat-stream.js';
import { resolveConnection, resolveModel, type OpenAIConnectionSettings } from './connection.js';
import {
  certaintyFromLogprobs,
  completionSchema,
  openAIFinishReason,
  toUsage,
} from './wire-schemas.js';

/** Chat model used when `model` is not set (OpenAI's API only). */
export const DEFAULT_OPENAI_CHAT_MODEL = 'gpt-4.1-mini';

/** Settings of {@link createOpenAIChat}. */
export interface OpenAIChatSettings extends OpenAIConnectionSettings {
  /** Model id (default `gpt-4.1-mini` on OpenAI's API; required for any other `baseURL`). */
  readonly model?: string | undefined;
  /** Tokens the model reads and writes per call (default: known for OpenAI models, else 8192). */
  readonly contextWindow?: number | undefined;
  /** Most tokens the model writes per call; caps `maxTokens` (default: known for OpenAI models). */
  readonly maxOutputTokens?: number | undefined;
  /** Asks for token log-probabilities and reports `certainty` = exp(mean logprob) (default false). */
  readonly logprobs?: boolean | undefined;
  /**
   * Body field carrying `maxTokens`: `max_completion_tokens` (OpenAI's current name, required
   * by its reasoning models) or the deprecated `max_tokens` that older compatible servers
   * read. Default: `max_completion_tokens` for OpenAI's API, `max_tokens` for any other URL.
   */
  readonly maxTokensField?: 'max_completion_tokens' | 'max_tokens' | undefined;
  /** Sends `stream_options: { include_usage: true }` when streaming (default true). */
  readonly streamUsage?: boolean | undefined;
  /** `top_p` of requests that set no `topP` (default: none sent). */
  readonly topP?: number | undefined;
  /** Extra body fields merged into every request (e.g. `{ seed: 7 }`). */
  readonly body?: Readonly<Record<string, unknown>> | undefined;
}

/** Known limits of a model family. */
interface ModelLimits {
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;
}

/** Published limits of OpenAI chat model families (prefix match), newest first. */
const CHAT_MODEL_LIMITS: readonly (readonly [RegExp, ModelLimits])[] = [
  [/^gpt-5/, { contextWindow: 400_000, maxOutputTokens: 128_000 }],
  [/^gpt-4\.1/, { contextWindow: 1_047_576, maxOutputTokens: 32_768 }],
  [/^gpt-4o/, { contextWindow: 128_000, maxOutputTokens: 16_384 }],
  [/^o[134](-|$)/, { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  [/^gpt-4-turbo/, { contextWindow: 128_000, maxOutputTokens: 4_096 }],
  [/^gpt-3\.5-turbo/, { contextWindow: 16_385, maxOutputTokens: 4_096 }],
];

/** Model families whose limits `CHAT_MODEL_LIMITS` knows (`LLMMetadata.supportedModels`). */
export const OPENAI_SUPPORTED_MODELS: readonly string[] = Object.freeze([
  'gpt-5',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4o',
  'gpt-4o-mini',
  'o1',
  'o3',
  'o4-mini',
  'gpt-4-turbo',
  'gpt-3.5-turbo',
]);

/** Context window assumed for an unknown model: small, so prompts are never over-packed. */
const UNKNOWN_CONTEXT_WINDOW = 8_192;

/**
 * Creates an `LLMProvider` over `POST {baseURL}/chat/completions`: the system prompt as a
 * `system` message first, then the history as real role messages; `maxTokens` as
 * `max_completion_tokens` (or `max_tokens`, see `maxTokensField`), `temperature`, `top_p`; streaming
 * with `stream_options.include_usage`.
 */
export function createOpenAIChat(settings: OpenAIChatSettings = {}): LLMProvider {
  const connection = resolveConnection(settings);
  const { name } = connection;
  const model = resolveModel(connection, settings.model, DEFAULT_OPENAI_CHAT_MODEL);
  checkPositiveInteger(name, 'contextWindow', settings.contextWindow);
  checkPositiveInteger(name, 'maxOutputTokens', settings.maxOutputTokens);
  checkTopP(name, 'topP', settings.topP);
  const known = CHAT_MODEL_LIMITS.find(([pattern]) => pattern.test(model))?.[1];
  const contextWindow = settings.contextWindow ?? known?.contextWindow ?? UNKNOWN_CONTEXT_WINDOW;
  const maxOutputTokens = settings.maxOutputTokens ?? known?.maxOutputTokens;
  const maxTokensField =
    settings.maxTokensField ?? (connection.isOpenAI ? 'max_completion_tokens' : 'max_tokens');
  const logprobs = settings.logprobs ?? false;
  const streamUsage = settings.streamUsage ?? true;
  const url = `${connection.baseURL}/chat/completions`;

  const requestBody = (request: LLMRequest, stream: boolean): Record<string, unknown> => {
    validateMessages(name, request);
    const topP = request.topP ?? settings.topP;
    const messages = [
      ...(request.system ? [{ role: 'system', content: request.system }] : []),
      ...request.messages.map((message) => ({ role: message.role, content: message.content })),
    ];
    const maxTokens =
      request.maxTokens === undefined
        ? undefined
        : Math.min(request.maxTokens, maxOutputTokens ?? Number.POSITIVE_INFINITY);
    return {
      ...settings.body,
      model,
      messages,
      ...(maxTokens === undefined ? {} : { [maxTokensField]: maxTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(topP === undefined ? {} : { top_p: topP }),
      ...(logprobs ? { logprobs: true } : {}),
      ...(stream
        ? { stream: true, ...(streamUsage ? { stream_options: { include_usage: true } } : {}) }
        : {}),
    };
  };

  const post = (request: LLMRequest, stream: boolean) =>
    postJson({
      provider: name,
      url,
      headers: stream ? { accept: 'text/event-stream', ...connection.headers } : connection.headers,
      body: requestBody(request, stream),
      fetch: connection.fetch,
      signal: request.signal,
      secrets: [connection.apiKey],
    });

  return {
    name,
    specificationVersion: 'v1',
    metadata: {
      provider: name,
      model,
      type: connection.isOpenAI ? 'openai' : 'custom',
      supportedModels: connection.isOpenAI ? OPENAI_SUPPORTED_MODELS : [model],
      contextWindow,
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    },

    async generate(request): Promise<LLMResult> {
      const response = await post(request, false);
      const json = await readJson(response, name, request.signal);
      const data = parseResponse(completionSchema, json, name, 'chat completion');
      const choice = data.choices[0];
      if (choice === undefined) {
        throw new ProviderError(`${name} returned no choices`, {
          provider: name,
          retryable: false,
        });
      }
      const refused = !choice.message.content && Boolean(choice.message.refusal);
      const text = choice.message.content ?? choice.message.refusal ?? '';
      const usage = toUsage(data.usage);
      const certainty = certaintyFromLogprobs(
        (choice.logprobs?.content ?? []).map((token) => token.logprob),
      );
      return {
        text,
        finishReason: refused ? 'content-filter' : openAIFinishReason(choice.finish_reason),
        ...(usage === undefined ? {} : { usage }),
        ...(certainty === undefined ? {} : { certainty }),
      };
    },

    async *stream(request): AsyncGenerator<LLMStreamPart> {
      const { signal } = request;
      const response = await post(request, true);
      if (response.body === null) throw streamCutError(name);
      yield* readChatStream(response.body, name, signal);
    },
  };
}

/** Throws a `ValidationError` when the request has no messages. */
function validateMessages(provider: string, request: LLMRequest): void {
  if (request.messages.length === 0) {
    throw new ValidationError(`${provider}: messages must not be empty`, [
      { path: 'messages', message: 'must not be empty' },
    ]);
  }
}
