/**
 * Builds a model provider from a small config object or from the environment (seed 000
 * §5.3). Used by the CLI; the environment is passed in (never read from `process.env`
 * here), so this module runs anywhere.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { providerFromEnv } from './adapters/provider-factory.js';
 *
 * const provider = providerFromEnv(process.env);
 * const engine = createChatEngine(provider ? { llm: provider.llm } : {});
 * ```
 * @module
 */
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { LLMProvider } from '../ports/llm-provider.js';
import { ConfigError } from '../errors/index.js';
import { createAnthropicChat, DEFAULT_ANTHROPIC_MODEL } from './anthropic/index.js';
import type { FetchFunction } from './http/post-json.js';
import {
  createOllamaChat,
  createOllamaEmbeddings,
  DEFAULT_OLLAMA_CHAT_MODEL,
  normalizeOllamaHost,
  OLLAMA_DEFAULT_HOST,
} from './ollama/index.js';
import {
  createOpenAIChat,
  createOpenAIEmbeddings,
  DEFAULT_OPENAI_CHAT_MODEL,
  OPENAI_BASE_URL,
} from './openai/index.js';

/** Which provider to build and how to reach it. */
export interface ProviderConfig {
  /** The provider: `openai` (or any OpenAI-compatible server), `anthropic` or `ollama`. */
  readonly type: 'openai' | 'anthropic' | 'ollama';
  /** Model id (default per provider: `gpt-4.1-mini`, `claude-haiku-4-5`, `llama3.2`). */
  readonly model?: string | undefined;
  /** API key; required for OpenAI's and Anthropic's own APIs. */
  readonly apiKey?: string | undefined;
  /** Base URL (OpenAI-compatible server, Anthropic proxy) or Ollama host. */
  readonly baseURL?: string | undefined;
  /** Embedding model for the optional `embedder` (OpenAI and Ollama only). */
  readonly embeddingModel?: string | undefined;
  /** The `fetch` the adapters use (default: the global `fetch`). */
  readonly fetch?: FetchFunction | undefined;
}

/** A built provider. */
export interface ProviderBundle {
  /** The language model. */
  readonly llm: LLMProvider;
  /**
   * An embedder from the same provider, when it has one (OpenAI, Ollama). The engine keeps
   * its offline hashing embedder unless the caller passes this one explicitly: switching
   * embedders changes every stored vector.
   */
  readonly embedder?: EmbeddingProvider | undefined;
  /** One line for logs and the CLI, e.g. `openai gpt-4.1-mini (https://api.openai.com/v1)`; never the key. */
  readonly description: string;
}

/**
 * Builds the provider a config names. Throws `ConfigError` for an unknown type or a missing
 * key that the provider's own API requires.
 */
export function createProvider(config: ProviderConfig): ProviderBundle {
  const apiKey = config.apiKey?.trim() || undefined;
  const baseURL = config.baseURL?.trim() || undefined;
  const model = config.model?.trim() || undefined;
  const fetch = config.fetch;
  switch (config.type) {
    case 'openai': {
      const url = baseURL ?? OPENAI_BASE_URL;
      if (apiKey === undefined && isHost(url, 'api.openai.com')) {
        throw missingKey('openai', 'OPENAI_API_KEY');
      }
      if (model === undefined && !isHost(url, 'api.openai.com')) {
        throw new ConfigError(`An OpenAI-compatible server needs a model: set OPENAI_MODEL`, [
          { path: 'model', message: `is required for ${url} (set OPENAI_MODEL)` },
        ]);
      }
      const chatModel = model ?? DEFAULT_OPENAI_CHAT_MODEL;
      const common = { apiKey, baseURL: url, fetch };
      return {
        llm: createOpenAIChat({ ...common, model: chatModel }),
        embedder: optionalEmbedder(() =>
          createOpenAIEmbeddings({ ...common, model: config.embeddingModel }),
        ),
        description: `openai ${chatModel} (${url})`,
      };
    }
    case 'anthropic': {
      const url = baseURL ?? 'https://api.anthropic.com';
      if (apiKey === undefined && isHost(url, 'api.anthropic.com')) {
        throw missingKey('anthropic', 'ANTHROPIC_API_KEY');
      }
      const chatModel = model ?? DEFAULT_ANTHROPIC_MODEL;
      return {
        llm: createAnthropicChat({ apiKey, baseURL: url, model: chatModel, fetch }),
        description: `anthropic ${chatModel} (${url})`,
      };
    }
    case 'ollama': {
      const host = normalizeOllamaHost(baseURL ?? OLLAMA_DEFAULT_HOST);
      const chatModel = model ?? DEFAULT_OLLAMA_CHAT_MODEL;
      const common = { host, apiKey, fetch };
      return {
        llm: createOllamaChat({ ...common, model: chatModel }),
        embedder: optionalEmbedder(() =>
          createOllamaEmbeddings({ ...common, model: config.embeddingModel }),
        ),
        description: `ollama ${chatModel} (${host})`,
      };
    }
    default: {
      const type: unknown = (config as { type?: unknown }).type;
      throw new ConfigError(`Unknown provider type '${String(type)}'`, [
        { path: 'type', message: "must be 'openai', 'anthropic' or 'ollama'" },
      ]);
    }
  }
}

/**
 * The provider the environment configures, or null: `OPENAI_API_KEY` or `OPENAI_BASE_URL`
 * (+ `OPENAI_MODEL`, `OPENAI_EMBEDDING_MODEL`), else `ANTHROPIC_API_KEY` (+ `ANTHROPIC_MODEL`,
 * `ANTHROPIC_BASE_URL`), else `OLLAMA_HOST` (+ `OLLAMA_MODEL`, `OLLAMA_EMBEDDING_MODEL`).
 * Empty variables count as unset.
 */
export function providerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly fetch?: FetchFunction | undefined } = {},
): ProviderBundle | null {
  const get = (key: string): string | undefined => env[key]?.trim() || undefined;
  if (get('OPENAI_API_KEY') !== undefined || get('OPENAI_BASE_URL') !== undefined) {
    return createProvider({
      type: 'openai',
      apiKey: get('OPENAI_API_KEY'),
      baseURL: get('OPENAI_BASE_URL'),
      model: get('OPENAI_MODEL'),
      embeddingModel: get('OPENAI_EMBEDDING_MODEL'),
      fetch: options.fetch,
    });
  }
  if (get('ANTHROPIC_API_KEY') !== undefined) {
    return createProvider({
      type: 'anthropic',
      apiKey: get('ANTHROPIC_API_KEY'),
      baseURL: get('ANTHROPIC_BASE_URL'),
      model: get('ANTHROPIC_MODEL'),
      fetch: options.fetch,
    });
  }
  if (get('OLLAMA_HOST') !== undefined) {
    return createProvider({
      type: 'ollama',
      baseURL: get('OLLAMA_HOST'),
      model: get('OLLAMA_MODEL'),
      embeddingModel: get('OLLAMA_EMBEDDING_MODEL'),
      fetch: options.fetch,
    });
  }
  return null;
}

function isHost(url: string, hostname: string): boolean {
  try {
    return new URL(url).hostname === hostname;
  } catch {
    return false;
  }
}

function missingKey(provider: string, variable: string): ConfigError {
  return new ConfigError(`The ${provider} provider needs an API key: set ${variable}`, [
    { path: 'apiKey', message: `is required (set ${variable})` },
  ]);
}

/**
 * An embedder, or undefined when it cannot be built without more settings (a compatible
 * server's model whose vector length is unknown): the LLM still works.
 */
function optionalEmbedder(build: () => EmbeddingProvider): EmbeddingProvider | undefined {
  try {
    return build();
  } catch (error) {
    if (ConfigError.isInstance(error)) return undefined;
    throw error;
  }
}
