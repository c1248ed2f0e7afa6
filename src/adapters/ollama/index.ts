/**
 * `cortexis/ollama`: Ollama's native API over `fetch` — `POST /api/chat` (newline-delimited
 * JSON when streaming) and `POST /api/embed`. No SDK, no `node:` imports; reading
 * `OLLAMA_HOST` is the provider factory's job, not this module's. The adapter never retries
 * or times out: it honours `signal` and throws `ProviderError` or `AbortError`.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createOllamaChat, createOllamaEmbeddings } from 'cortexis/ollama';
 *
 * const engine = createChatEngine({
 *   llm: createOllamaChat({ model: 'llama3.2', contextWindow: 8192 }),
 *   embedder: createOllamaEmbeddings({ model: 'nomic-embed-text' }),
 * });
 * ```
 * @module
 */
import * as z from 'zod/mini';
import { ProviderError, ValidationError } from '../../errors/index.js';
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import type {
  FinishReason,
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
  LLMUsage,
} from '../../ports/llm-provider.js';
import { readNdjson } from '../http/ndjson.js';
import {
  abortError,
  parseResponse,
  postJson,
  readJson,
  streamCutError,
  type FetchFunction,
  type HeaderValues,
} from '../http/post-json.js';
import { badEmbeddings, batchedEmbedder } from '../http/embeddings.js';
import {
  checkBaseURL,
  checkNonEmpty,
  checkPositiveInteger,
  checkTopP,
  invalidSetting,
} from '../http/settings.js';
import { trimTrailing } from '../../util/trim-trailing.js';

export type { FetchFunction, HeaderValues } from '../http/post-json.js';

/** Where a local Ollama listens by default. */
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';
/** Chat model used when `model` is not set. */
export const DEFAULT_OLLAMA_CHAT_MODEL = 'llama3.2';
/** Embedding model used when `model` is not set. */
export const DEFAULT_OLLAMA_EMBEDDING_MODEL = 'nomic-embed-text';

/** Settings shared by the chat and embedding adapters. */
export interface OllamaConnectionSettings {
  /** Server URL (default `http://127.0.0.1:11434`); `host:port` without a scheme is accepted. */
  readonly host?: string | undefined;
  /** Provider name in metadata and errors (default `ollama`). */
  readonly name?: string | undefined;
  /** Sent as `Authorization: Bearer` (for ollama.com or an authenticating proxy). */
  readonly apiKey?: string | undefined;
  /** Extra headers sent with every request (they override the defaults). */
  readonly headers?: HeaderValues | undefined;
  /** The `fetch` to use (default: the global `fetch`). */
  readonly fetch?: FetchFunction | undefined;
  /** How long Ollama keeps the model loaded after a call, e.g. `'10m'` (Ollama's default: 5m). */
  readonly keepAlive?: string | number | undefined;
}

/** Settings of {@link createOllamaChat}. */
export interface OllamaChatSettings extends OllamaConnectionSettings {
  /** `options.top_p` of requests that set no `topP` (default: none sent). */
  readonly topP?: number | undefined;
  /** Model name (default `llama3.2`). */
  readonly model?: string | undefined;
  /**
   * Context window used for this model, sent as `options.num_ctx` and reported in metadata
   * (default 8192). Ollama loads models with a small window unless told otherwise.
   */
  readonly contextWindow?: number | undefined;
  /** Most tokens the model writes per call; caps `num_predict`. */
  readonly maxOutputTokens?: number | undefined;
  /** Extra `options` merged into every request (e.g. `{ top_p: 0.9, seed: 7 }`). */
  readonly options?: Readonly<Record<string, unknown>> | undefined;
}

/** Settings of {@link createOllamaEmbeddings}. */
export interface OllamaEmbeddingsSettings extends OllamaConnectionSettings {
  /** Model name (default `nomic-embed-text`). */
  readonly model?: string | undefined;
  /** Vector length; required unless the model is a known one (nomic-embed-text: 768, …). */
  readonly dimensions?: number | undefined;
  /** Most texts per request; longer batches are split (default 32). */
  readonly maxBatchSize?: number | undefined;
  /** Typical cosine of an unrelated and a related pair, `[floor, ceiling]` (see the port). */
  readonly similarityRange?: readonly [number, number] | undefined;
}

/** Vector length of common Ollama embedding models (by name, without the `:tag`). */
const EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'all-minilm': 384,
  'snowflake-arctic-embed': 1024,
  'bge-m3': 1024,
  embeddinggemma: 768,
};

/**
 * Normalises an Ollama host as `OLLAMA_HOST` is written: adds `http://` and port 11434 when
 * missing, and maps the bind-all address `0.0.0.0` to `127.0.0.1`.
 */
export function normalizeOllamaHost(host: string): string {
  let value = host.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) value = `http://${value}`;
  try {
    const url = new URL(value);
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    if (url.port === '' && !/:\d+(\/|$)/.test(value.replace(/^[a-z]+:\/\//i, ''))) {
      if (url.protocol === 'http:') url.port = '11434';
    }
    return trimTrailing(url.toString(), '/');
  } catch {
    return value;
  }
}

interface Connection {
  readonly name: string;
  readonly host: string;
  readonly headers: HeaderValues;
  readonly fetch: FetchFunction | undefined;
  readonly apiKey: string | undefined;
  readonly keepAlive: string | number | undefined;
}

function resolveConnection(settings: OllamaConnectionSettings): Connection {
  const name = settings.name ?? 'ollama';
  checkNonEmpty('ollama', 'name', name);
  const host = checkBaseURL(
    name,
    'host',
    normalizeOllamaHost(settings.host ?? OLLAMA_DEFAULT_HOST),
  );
  const apiKey = settings.apiKey === '' ? undefined : settings.apiKey;
  return {
    name,
    host,
    apiKey,
    fetch: settings.fetch,
    keepAlive: settings.keepAlive,
    headers: {
      authorization: apiKey === undefined ? undefined : `Bearer ${apiKey}`,
      ...Object.fromEntries(
        Object.entries(settings.headers ?? {}).map(([key, value]) => [key.toLowerCase(), value]),
      ),
    },
  };
}

const chatChunkSchema = z.object({
  message: z.nullish(z.object({ content: z.nullish(z.string()) })),
  done: z.nullish(z.boolean()),
  done_reason: z.nullish(z.string()),
  prompt_eval_count: z.nullish(z.number()),
  eval_count: z.nullish(z.number()),
  error: z.nullish(z.string()),
});

const embedSchema = z.object({ embeddings: z.array(z.array(z.number())) });

/** Maps an Ollama `done_reason` to the port's `FinishReason`. */
export function ollamaFinishReason(reason: string | null | undefined): FinishReason {
  if (reason === 'stop' || reason === undefined || reason === null) return 'stop';
  return reason === 'length' ? 'length' : 'other';
}

function toUsage(chunk: z.output<typeof chatChunkSchema>): LLMUsage | undefined {
  if (chunk.prompt_eval_count == null && chunk.eval_count == null) return undefined;
  return {
    inputTokens: Math.round(chunk.prompt_eval_count ?? 0),
    outputTokens: Math.round(chunk.eval_count ?? 0),
  };
}

/**
 * Creates an `LLMProvider` over `POST {host}/api/chat`: system prompt as the first `system`
 * message, history as real role messages, `options: { temperature, top_p, num_predict, num_ctx }`.
 */
export function createOllamaChat(settings: OllamaChatSettings = {}): LLMProvider {
  const connection = resolveConnection(settings);
  const { name } = connection;
  const model = settings.model ?? DEFAULT_OLLAMA_CHAT_MODEL;
  checkNonEmpty(name, 'model', model);
  checkPositiveInteger(name, 'contextWindow', settings.contextWindow);
  checkPositiveInteger(name, 'maxOutputTokens', settings.maxOutputTokens);
  checkTopP(name, 'topP', settings.topP);
  const contextWindow = settings.contextWindow ?? 8_192;
  const { maxOutputTokens } = settings;
  const url = `${connection.host}/api/chat`;

  const requestBody = (request: LLMRequest, stream: boolean): Record<string, unknown> => {
    if (request.messages.length === 0) {
      throw new ValidationError(`${name}: messages must not be empty`, [
        { path: 'messages', message: 'must not be empty' },
      ]);
    }
    const limit = request.maxTokens ?? maxOutputTokens;
    const topP = request.topP ?? settings.topP;
    const numPredict =
      limit === undefined
        ? undefined
        : Math.min(limit, maxOutputTokens ?? Number.POSITIVE_INFINITY);
    return {
      model,
      messages: [
        ...(request.system ? [{ role: 'system', content: request.system }] : []),
        ...request.messages.map((message) => ({ role: message.role, content: message.content })),
      ],
      stream,
      options: {
        ...settings.options,
        num_ctx: contextWindow,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(topP === undefined ? {} : { top_p: topP }),
        ...(numPredict === undefined ? {} : { num_predict: numPredict }),
      },
      ...(connection.keepAlive === undefined ? {} : { keep_alive: connection.keepAlive }),
    };
  };

  const post = (request: LLMRequest, stream: boolean) =>
    postJson({
      provider: name,
      url,
      headers: connection.headers,
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
      // Ollama serves whatever was pulled: the one model it was given is the one it knows.
      type: 'local',
      supportedModels: [model],
      contextWindow,
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    },

    async generate(request): Promise<LLMResult> {
      const response = await post(request, false);
      const json = await readJson(response, name, request.signal);
      const chunk = parseResponse(chatChunkSchema, json, name, 'chat response');
      if (chunk.error) throw streamError(name, chunk.error);
      const usage = toUsage(chunk);
      return {
        text: chunk.message?.content ?? '',
        finishReason: ollamaFinishReason(chunk.done_reason),
        ...(usage === undefined ? {} : { usage }),
      };
    },

    async *stream(request): AsyncGenerator<LLMStreamPart> {
      const { signal } = request;
      const response = await post(request, true);
      if (response.body === null) throw streamCutError(name);
      let last: z.output<typeof chatChunkSchema> | undefined;
      for await (const value of readNdjson(response.body, { provider: name, signal })) {
        const chunk = parseResponse(chatChunkSchema, value, name, 'stream chunk');
        if (chunk.error) throw streamError(name, chunk.error);
        const text = chunk.message?.content ?? '';
        if (text !== '') {
          if (signal?.aborted) throw abortError(signal);
          yield { type: 'text-delta', text };
        }
        if (chunk.done) {
          last = chunk;
          break;
        }
      }
      if (signal?.aborted) throw abortError(signal);
      if (last === undefined) throw streamCutError(name);
      const usage = toUsage(last);
      yield {
        type: 'finish',
        finishReason: ollamaFinishReason(last.done_reason),
        ...(usage === undefined ? {} : { usage }),
      };
    },
  };
}

function streamError(provider: string, message: string): ProviderError {
  // Ollama reports errors as `{ "error": "…" }` lines; a failure mid-generation is the server's.
  return new ProviderError(`${provider} error: ${message}`, { provider, retryable: true });
}

/**
 * Creates an `EmbeddingProvider` over `POST {host}/api/embed` (`{ model, input }` →
 * `{ embeddings }`), one `Float32Array` per text in input order.
 */
export function createOllamaEmbeddings(settings: OllamaEmbeddingsSettings = {}): EmbeddingProvider {
  const connection = resolveConnection(settings);
  const { name } = connection;
  const model = settings.model ?? DEFAULT_OLLAMA_EMBEDDING_MODEL;
  checkNonEmpty(name, 'model', model);
  checkPositiveInteger(name, 'dimensions', settings.dimensions);
  checkPositiveInteger(name, 'maxBatchSize', settings.maxBatchSize);
  const dimensions = settings.dimensions ?? EMBEDDING_DIMENSIONS[model.split(':')[0]!];
  if (dimensions === undefined) {
    throw invalidSetting(
      name,
      'dimensions',
      `is required for model '${model}' (its vector length)`,
    );
  }
  const maxBatchSize = settings.maxBatchSize ?? 32;
  const url = `${connection.host}/api/embed`;

  const embedBatch = async (texts: readonly string[], signal: AbortSignal | undefined) => {
    const response = await postJson({
      provider: name,
      url,
      headers: connection.headers,
      body: {
        model,
        input: texts,
        ...(connection.keepAlive === undefined ? {} : { keep_alive: connection.keepAlive }),
      },
      fetch: connection.fetch,
      signal,
      secrets: [connection.apiKey],
    });
    const json = await readJson(response, name, signal);
    const { embeddings } = parseResponse(embedSchema, json, name, 'embed response');
    if (embeddings.length !== texts.length) {
      throw badEmbeddings(name, `${embeddings.length} vectors for ${texts.length} inputs`);
    }
    return embeddings.map((vector) => {
      if (vector.length !== dimensions) {
        throw badEmbeddings(name, `vector of ${vector.length} dimensions, expected ${dimensions}`);
      }
      return Float32Array.from(vector);
    });
  };

  return batchedEmbedder({
    name,
    model,
    dimensions,
    maxBatchSize,
    similarityRange: settings.similarityRange,
    embedBatch,
  });
}
