/**
 * `cortexis/providers`: build a hosted or local model provider from a config object
 * (`createProvider`) or from environment variables you pass in (`providerFromEnv`).
 *
 * The core engine never does this by itself: `createChatEngine()` answers with the offline
 * extractive model unless you pass `llm`, whatever variables the host process has set, so
 * no user data leaves the machine unless your code chooses a provider. This subpath is also
 * what keeps the OpenAI, Anthropic and Ollama adapters out of the core bundle.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createProvider, providerFromEnv } from 'cortexis/providers';
 *
 * // Explicit: one provider, its key from wherever you keep secrets.
 * const openai = createProvider({ type: 'openai', apiKey: process.env.OPENAI_API_KEY });
 * const engine = createChatEngine({ llm: openai.llm });
 *
 * // Or the first provider the environment configures (null: stay offline).
 * const detected = providerFromEnv(process.env);
 * if (detected) console.log(`Model: ${detected.description}, because ${detected.reason}`);
 * const engine2 = createChatEngine(detected ? { llm: detected.llm } : {});
 * ```
 * @module
 */
export {
  createProvider,
  PROVIDER_TYPES,
  type ProviderBundle,
  type ProviderConfig,
  type ProviderType,
} from './factory.js';
export {
  providerFromEnv,
  type Environment,
  type EnvironmentProvider,
  type ProviderFromEnvOptions,
} from './env.js';
export type { FetchFunction } from '../http/post-json.js';
