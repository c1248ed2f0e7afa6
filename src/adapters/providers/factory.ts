/**
 * Builds a model provider from a small config object (seed 000 §5.3). Nothing here reads the
 * environment; `providerFromEnv` (`./env.ts`) maps variables onto this config.
 * @module
 */
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import type { LLMProvider } from '../../ports/llm-provider.js';
import { ConfigError } from '../../errors/index.js';
import { createAnthropicChat, DEFAULT_ANTHROPIC_MODEL } from '../anthropic/index.js';
import type { FetchFunction } from '../http/post-json.js';
import {
  createOllamaChat,
  createOllamaEmbeddings,
  DEFAULT_OLLAMA_CHAT_MODEL,
  normalizeOllamaHost,
  OLLAMA_DEFAULT_HOST,
} from '../ollama/index.js';
import {
  createOpenAIChat,
  createOpenAIEmbeddings,
  DEFAULT_OPENAI_CHAT_MODEL,
  OPENAI_BASE_URL,
} from '../openai/index.js';

/** The providers `createProvider` builds. */
export const PROVIDER_TYPES = ['openai', 'anthropic', 'ollama'] as const;

/** A provider `createProvider` builds: `openai` (or any OpenAI-compatible server), `anthropic` or `ollama`. */
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** The base URL of Anthropic's own API. */
const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** Which provider to build and how to reach it. */
export interface ProviderConfig {
  /** The provider: `openai` (or any OpenAI-compatible server), `anthropic` or `ollama`. */
  readonly type: ProviderType;
  /**
   * Model id (default per provider: `gpt-4.1-mini`, `claude-haiku-4-5`, `llama3.2`; required
   * for an OpenAI-compatible server other than api.openai.com).
   */
  readonly model?: string | undefined;
  /** API key; required for OpenAI's and Anthropic's own APIs, optional elsewhere. */
  readonly apiKey?: string | undefined;
  /** Base URL (OpenAI-compatible server, Anthropic proxy) or Ollama host. */
  readonly baseURL?: string | undefined;
  /** Embedding model for the optional `embedder` (OpenAI and Ollama only). */
  readonly embeddingModel?: string | undefined;
  /**
   * Nucleus sampling in (0, 1] for every call (seed 000 `topP`), sent as `top_p` by all three;
   * a request's own `topP` wins. Default: none sent (the API's default).
   */
  readonly topP?: number | undefined;
  /** The `fetch` the adapters use (default: the global `fetch`). */
  readonly fetch?: FetchFunction | undefined;
}

/** A built provider. */
export interface ProviderBundle {
  /** The provider that was built. */
  readonly type: ProviderType;
  /** The language model: pass it as `createChatEngine({ llm })`. */
  readonly llm: LLMProvider;
  /**
   * An embedder from the same provider, when it has one (OpenAI, Ollama). The engine keeps
   * its offline hashing embedder unless the caller passes this one explicitly: switching
   * embedders changes every stored vector.
   */
  readonly embedder?: EmbeddingProvider | undefined;
  /**
   * One line for logs, e.g. `openai gpt-4.1-mini (https://api.openai.com/v1)`: never the key
   * (credentials and query strings in a URL are left out too).
   */
  readonly description: string;
}

/**
 * Builds the provider a config names. Throws `ConfigError` for an unknown type, a missing key
 * that the provider's own API requires, or an OpenAI-compatible server without a model.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createProvider } from 'cortexis/providers';
 *
 * const provider = createProvider({ type: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY });
 * const engine = createChatEngine({ llm: provider.llm });
 * ```
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
        throw missingKey('openai', url);
      }
      if (model === undefined && !isHost(url, 'api.openai.com')) {
        throw new ConfigError(
          `An OpenAI-compatible server (${displayURL(url)}) needs a model: set model`,
          [{ path: 'model', message: `is required for ${displayURL(url)}` }],
        );
      }
      const chatModel = model ?? DEFAULT_OPENAI_CHAT_MODEL;
      const common = { apiKey, baseURL: url, fetch };
      return {
        type: 'openai',
        llm: createOpenAIChat({ ...common, model: chatModel, topP: config.topP }),
        embedder: optionalEmbedder(() =>
          createOpenAIEmbeddings({ ...common, model: config.embeddingModel }),
        ),
        description: `openai ${chatModel} (${displayURL(url)})`,
      };
    }
    case 'anthropic': {
      const url = baseURL ?? ANTHROPIC_BASE_URL;
      if (apiKey === undefined && isHost(url, 'api.anthropic.com')) {
        throw missingKey('anthropic', url);
      }
      const chatModel = model ?? DEFAULT_ANTHROPIC_MODEL;
      return {
        type: 'anthropic',
        llm: createAnthropicChat({
          apiKey,
          baseURL: url,
          model: chatModel,
          fetch,
          topP: config.topP,
        }),
        description: `anthropic ${chatModel} (${displayURL(url)})`,
      };
    }
    case 'ollama': {
      const host = normalizeOllamaHost(baseURL ?? OLLAMA_DEFAULT_HOST);
      const chatModel = model ?? DEFAULT_OLLAMA_CHAT_MODEL;
      const common = { host, apiKey, fetch };
      return {
        type: 'ollama',
        llm: createOllamaChat({ ...common, model: chatModel, topP: config.topP }),
        embedder: optionalEmbedder(() =>
          createOllamaEmbeddings({ ...common, model: config.embeddingModel }),
        ),
        description: `ollama ${chatModel} (${displayURL(host)})`,
      };
    }
    default: {
      const type: unknown = (config as { type?: unknown }).type;
      throw new ConfigError(`Unknown provider type '${String(type)}'`, [
        { path: 'type', message: `must be one of ${PROVIDER_TYPES.join(', ')}` },
      ]);
    }
  }
}

function isHost(url: string, hostname: string): boolean {
  try {
    return new URL(url).hostname === hostname;
  } catch {
    return false;
  }
}

/** A URL safe to log: without user, password, query or fragment (they may carry a key). */
export function displayURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(invalid URL)';
  }
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

function missingKey(provider: ProviderType, url: string): ConfigError {
  return new ConfigError(`The ${provider} provider needs an API key: set apiKey`, [
    { path: 'apiKey', message: `is required for ${displayURL(url)}` },
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
