/**
 * `cortexis/openai`: the Chat Completions and Embeddings APIs over `fetch`, for OpenAI and
 * any OpenAI-compatible server (vLLM, LM Studio, llama.cpp server, Ollama's `/v1`). No SDK,
 * no `node:` imports. Adapters never retry or time out: they honour `signal` and throw
 * `ProviderError` (`status`, `retryable`, `retryAfterMs`) or `AbortError`, and the engine's
 * resilience layer decides.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createOpenAIChat, createOpenAIEmbeddings } from 'cortexis/openai';
 *
 * const engine = createChatEngine({
 *   llm: createOpenAIChat({ apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4.1-mini' }),
 * });
 *
 * // A local OpenAI-compatible server needs no key:
 * const local = createOpenAIChat({ baseURL: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b' });
 * ```
 * @module
 */
import * as z from 'zod/mini';
import { ProviderError, ValidationError } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import type {
  FinishReason,
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
  invalidSetting,
} from '../http/settings.js';
import { readSse } from '../http/sse.js';

export type { FetchFunction, HeaderValues } from '../http/post-json.js';

/** OpenAI's API base URL, the default `baseURL`. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Chat model used when `model` is not set (OpenAI's API only). */
export const DEFAULT_OPENAI_CHAT_MODEL = 'gpt-4.1-mini';
/** Embedding model used when `model` is not set (OpenAI's API only). */
export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

/** Settings shared by the chat and embedding adapters. */
export interface OpenAIConnectionSettings {
  /** API key, sent as `Authorization: Bearer`. Required for OpenAI's API; optional elsewhere. */
  readonly apiKey?: string | undefined;
  /** API base URL, up to and including `/v1` (default `https://api.openai.com/v1`). */
  readonly baseURL?: string | undefined;
  /** Provider name in metadata and errors (default `openai`; e.g. `vllm` for a local server). */
  readonly name?: string | undefined;
  /** OpenAI organization id, sent as `OpenAI-Organization`. */
  readonly organization?: string | undefined;
  /** OpenAI project id, sent as `OpenAI-Project`. */
  readonly project?: string | undefined;
  /** Extra headers sent with every request (they override the defaults). */
  readonly headers?: HeaderValues | undefined;
  /** The `fetch` to use (default: the global `fetch`). */
  readonly fetch?: FetchFunction | undefined;
}

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
  /** Extra body fields merged into every request (e.g. `{ top_p: 0.9, seed: 7 }`). */
  readonly body?: Readonly<Record<string, unknown>> | undefined;
}

/** Settings of {@link createOpenAIEmbeddings}. */
export interface OpenAIEmbeddingsSettings extends OpenAIConnectionSettings {
  /** Model id (default `text-embedding-3-small` on OpenAI's API; required elsewhere). */
  readonly model?: string | undefined;
  /**
   * Vector length. For `text-embedding-3-*` it is sent as the `dimensions` parameter (a
   * shortened embedding); for other models it declares their size and is required unless
   * the model is a known OpenAI one.
   */
  readonly dimensions?: number | undefined;
  /** Most texts per request; longer batches are split (default 256). */
  readonly maxBatchSize?: number | undefined;
  /** Typical cosine of an unrelated and a related pair, `[floor, ceiling]` (see the port). */
  readonly similarityRange?: readonly [number, number] | undefined;
}

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

/** Context window assumed for an unknown model: small, so prompts are never over-packed. */
const UNKNOWN_CONTEXT_WINDOW = 8_192;

/** Native vector length of OpenAI embedding models. */
const EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

interface Connection {
  readonly name: string;
  readonly baseURL: string;
  readonly isOpenAI: boolean;
  readonly headers: HeaderValues;
  readonly fetch: FetchFunction | undefined;
  readonly apiKey: string | undefined;
}

function resolveConnection(settings: OpenAIConnectionSettings): Connection {
  const name = settings.name ?? 'openai';
  checkNonEmpty('openai', 'name', name);
  const baseURL = checkBaseURL(name, 'baseURL', settings.baseURL ?? OPENAI_BASE_URL);
  const isOpenAI = new URL(baseURL).hostname === 'api.openai.com';
  const apiKey = settings.apiKey === '' ? undefined : settings.apiKey;
  if (isOpenAI && apiKey === undefined) {
    throw invalidSetting(name, 'apiKey', "is required for OpenAI's API (set OPENAI_API_KEY)");
  }
  return {
    name,
    baseURL,
    isOpenAI,
    apiKey,
    fetch: settings.fetch,
    headers: {
      authorization: apiKey === undefined ? undefined : `Bearer ${apiKey}`,
      'openai-organization': settings.organization,
      'openai-project': settings.project,
      ...lowerCaseKeys(settings.headers),
    },
  };
}

function lowerCaseKeys(headers: HeaderValues | undefined): HeaderValues {
  const result: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers ?? {})) result[key.toLowerCase()] = value;
  return result;
}

function resolveModel(connection: Connection, model: string | undefined, fallback: string) {
  if (model !== undefined) {
    checkNonEmpty(connection.name, 'model', model);
    return model;
  }
  if (!connection.isOpenAI) {
    throw invalidSetting(connection.name, 'model', 'is required for a server other than OpenAI');
  }
  return fallback;
}

const usageSchema = z.nullish(
  z.object({
    prompt_tokens: z.nullish(z.number()),
    completion_tokens: z.nullish(z.number()),
  }),
);

const logprobsSchema = z.nullish(
  z.object({ content: z.nullish(z.array(z.object({ logprob: z.number() }))) }),
);

const streamErrorSchema = z.nullish(
  z.object({
    message: z.nullish(z.string()),
    type: z.nullish(z.string()),
    code: z.nullish(z.union([z.string(), z.number()])),
  }),
);

const completionSchema = z.object({
  choices: z.array(
    z.object({
      message: z.object({ content: z.nullish(z.string()), refusal: z.nullish(z.string()) }),
      finish_reason: z.nullish(z.string()),
      logprobs: logprobsSchema,
    }),
  ),
  usage: usageSchema,
});

const chunkSchema = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        delta: z.nullish(
          z.object({ content: z.nullish(z.string()), refusal: z.nullish(z.string()) }),
        ),
        finish_reason: z.nullish(z.string()),
        logprobs: logprobsSchema,
      }),
    ),
  ),
  usage: usageSchema,
  error: streamErrorSchema,
});

const embeddingsSchema = z.object({
  data: z.array(z.object({ index: z.number(), embedding: z.array(z.number()) })),
});

/** Maps a Chat Completions `finish_reason` to the port's `FinishReason`. */
export function openAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

function toUsage(usage: z.output<typeof usageSchema>): LLMUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  return {
    inputTokens: Math.max(0, Math.round(usage.prompt_tokens ?? 0)),
    outputTokens: Math.max(0, Math.round(usage.completion_tokens ?? 0)),
  };
}

/** exp(mean token log-probability), in [0, 1]; undefined without tokens. */
export function certaintyFromLogprobs(logprobs: readonly number[]): number | undefined {
  if (logprobs.length === 0) return undefined;
  let sum = 0;
  for (const value of logprobs) sum += value;
  const certainty = Math.exp(sum / logprobs.length);
  return Number.isFinite(certainty) ? Math.min(1, Math.max(0, certainty)) : undefined;
}

/**
 * Creates an `LLMProvider` over `POST {baseURL}/chat/completions`: the system prompt as a
 * `system` message first, then the history as real role messages; `maxTokens` as
 * `max_completion_tokens` (or `max_tokens`, see `maxTokensField`), `temperature`; streaming
 * with `stream_options.include_usage`.
 */
export function createOpenAIChat(settings: OpenAIChatSettings = {}): LLMProvider {
  const connection = resolveConnection(settings);
  const { name } = connection;
  const model = resolveModel(connection, settings.model, DEFAULT_OPENAI_CHAT_MODEL);
  checkPositiveInteger(name, 'contextWindow', settings.contextWindow);
  checkPositiveInteger(name, 'maxOutputTokens', settings.maxOutputTokens);
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
      let finishReason: FinishReason | undefined;
      let usage: LLMUsage | undefined;
      let refused = false;
      let done = false;
      const tokenLogprobs: number[] = [];
      for await (const event of readSse(response.body, { provider: name, signal })) {
        if (event.data.trim() === '[DONE]') {
          done = true;
          break;
        }
        if (event.data.trim() === '') continue;
        const chunk = parseResponse(chunkSchema, parseJson(event.data, name), name, 'stream chunk');
        if (chunk.error) throw streamError(name, chunk.error);
        usage = toUsage(chunk.usage) ?? usage;
        const choice = chunk.choices?.[0];
        if (choice === undefined) continue;
        for (const token of choice.logprobs?.content ?? []) tokenLogprobs.push(token.logprob);
        const text = choice.delta?.content || choice.delta?.refusal || '';
        if (choice.delta?.refusal) refused = true;
        if (text !== '') {
          if (signal?.aborted) throw abortError(signal);
          yield { type: 'text-delta', text };
        }
        if (choice.finish_reason) finishReason = openAIFinishReason(choice.finish_reason);
      }
      if (signal?.aborted) throw abortError(signal);
      // Some compatible servers omit `[DONE]`; a finish reason also marks a complete answer.
      if (!done && finishReason === undefined) throw streamCutError(name);
      const certainty = certaintyFromLogprobs(tokenLogprobs);
      yield {
        type: 'finish',
        finishReason: refused ? 'content-filter' : (finishReason ?? 'other'),
        ...(usage === undefined ? {} : { usage }),
        ...(certainty === undefined ? {} : { certainty }),
      };
    },
  };
}

function streamError(provider: string, error: NonNullable<z.output<typeof streamErrorSchema>>) {
  const kind = String(error.code ?? error.type ?? '');
  const retryable = /server_error|overloaded|rate_limit|timeout|unavailable/i.test(kind);
  const detail = `${error.message ?? 'stream error'}${kind ? ` (${kind})` : ''}`;
  return new ProviderError(`${provider} stream error: ${detail}`, { provider, retryable });
}

function validateMessages(provider: string, request: LLMRequest): void {
  if (request.messages.length === 0) {
    throw new ValidationError(`${provider}: messages must not be empty`, [
      { path: 'messages', message: 'must not be empty' },
    ]);
  }
}

/**
 * Creates an `EmbeddingProvider` over `POST {baseURL}/embeddings`, returning one
 * `Float32Array` per text in input order (by each item's `index`).
 */
export function createOpenAIEmbeddings(settings: OpenAIEmbeddingsSettings = {}): EmbeddingProvider {
  const connection = resolveConnection(settings);
  const { name } = connection;
  const model = resolveModel(connection, settings.model, DEFAULT_OPENAI_EMBEDDING_MODEL);
  checkPositiveInteger(name, 'dimensions', settings.dimensions);
  checkPositiveInteger(name, 'maxBatchSize', settings.maxBatchSize);
  const shortenable = model.startsWith('text-embedding-3');
  const dimensions = settings.dimensions ?? EMBEDDING_DIMENSIONS[model];
  if (dimensions === undefined) {
    throw invalidSetting(
      name,
      'dimensions',
      `is required for model '${model}' (its vector length)`,
    );
  }
  const sendDimensions = shortenable && settings.dimensions !== undefined;
  const maxBatchSize = settings.maxBatchSize ?? 256;
  const url = `${connection.baseURL}/embeddings`;

  const embedBatch = async (texts: readonly string[], signal: AbortSignal | undefined) => {
    const response = await postJson({
      provider: name,
      url,
      headers: connection.headers,
      body: {
        model,
        input: texts,
        encoding_format: 'float',
        ...(sendDimensions ? { dimensions } : {}),
      },
      fetch: connection.fetch,
      signal,
      secrets: [connection.apiKey],
    });
    const json = await readJson(response, name, signal);
    const { data } = parseResponse(embeddingsSchema, json, name, 'embeddings response');
    const vectors: (Float32Array | undefined)[] = new Array(texts.length);
    for (const item of data) {
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= texts.length) {
        throw badEmbeddings(name, `index ${item.index} is out of range`);
      }
      if (item.embedding.length !== dimensions) {
        throw badEmbeddings(
          name,
          `vector of ${item.embedding.length} dimensions, expected ${dimensions}`,
        );
      }
      vectors[item.index] = Float32Array.from(item.embedding);
    }
    return Array.from(vectors, (vector, index) => vector ?? failMissing(name, index));
  };

  return {
    name,
    specificationVersion: 'v1',
    id: `${name}:${model}:${dimensions}`,
    dimensions,
    maxBatchSize,
    ...(settings.similarityRange === undefined
      ? {}
      : { similarityRange: settings.similarityRange }),
    async embed(texts: readonly string[], options?: CallOptions): Promise<Float32Array[]> {
      const signal = options?.signal;
      if (signal?.aborted) throw abortError(signal);
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += maxBatchSize) {
        vectors.push(...(await embedBatch(texts.slice(start, start + maxBatchSize), signal)));
      }
      return vectors;
    },
  };
}

function badEmbeddings(provider: string, detail: string): ProviderError {
  return new ProviderError(`${provider} sent unexpected embeddings: ${detail}`, {
    provider,
    retryable: false,
  });
}

function failMissing(provider: string, index: number): never {
  throw badEmbeddings(provider, `no vector for input ${index}`);
}
