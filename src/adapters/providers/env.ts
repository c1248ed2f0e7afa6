/**
 * Chooses a model provider from environment variables. The environment is an argument (never
 * read from `process.env` here), so this module runs anywhere and the engine never picks a
 * remote model on its own: only code that calls `providerFromEnv` opts in.
 * @module
 */
import { ConfigError, type FieldIssue } from '../../errors/index.js';
import type { FetchFunction } from '../http/post-json.js';
import { createProvider, type ProviderBundle, type ProviderType } from './factory.js';

/** Environment variables, e.g. `process.env` or `Deno.env.toObject()`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Options of `providerFromEnv`. */
export interface ProviderFromEnvOptions {
  /**
   * Build this provider from its own variables, skipping the precedence order (a CLI's
   * `--provider` flag). It is built even when none of its variables is set, with its
   * defaults (so `openai` without `OPENAI_API_KEY` or `OPENAI_BASE_URL` throws).
   */
  readonly type?: ProviderType | undefined;
  /** Model id; overrides the provider's `*_MODEL` variable (a CLI's `--model` flag). */
  readonly model?: string | undefined;
  /** The `fetch` the adapters use (default: the global `fetch`). */
  readonly fetch?: FetchFunction | undefined;
}

/** The provider the environment configures: what was chosen (`description`) and why (`reason`). */
export interface EnvironmentProvider extends ProviderBundle {
  /**
   * Why this provider was chosen, naming variables but never their values, e.g.
   * `OPENAI_BASE_URL is set (an OpenAI-compatible server, no OPENAI_API_KEY)` or
   * `OPENAI_API_KEY is set`; with the `type` option, `type 'openai' was requested`.
   */
  readonly reason: string;
}

/** The variables each provider reads. */
interface ProviderVariables {
  /** Any of these, set, chooses the provider (in the precedence order). */
  readonly triggers: readonly string[];
  readonly apiKey: string;
  readonly baseURL: string;
  readonly model: string;
  readonly embeddingModel?: string;
}

/** Providers in precedence order, with their variables. */
const PRECEDENCE: readonly (readonly [ProviderType, ProviderVariables])[] = [
  [
    'openai',
    {
      triggers: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
      apiKey: 'OPENAI_API_KEY',
      baseURL: 'OPENAI_BASE_URL',
      model: 'OPENAI_MODEL',
      embeddingModel: 'OPENAI_EMBEDDING_MODEL',
    },
  ],
  [
    'anthropic',
    {
      triggers: ['ANTHROPIC_API_KEY'],
      apiKey: 'ANTHROPIC_API_KEY',
      baseURL: 'ANTHROPIC_BASE_URL',
      model: 'ANTHROPIC_MODEL',
    },
  ],
  [
    'ollama',
    {
      triggers: ['OLLAMA_HOST'],
      apiKey: 'OLLAMA_API_KEY',
      baseURL: 'OLLAMA_HOST',
      model: 'OLLAMA_MODEL',
      embeddingModel: 'OLLAMA_EMBEDDING_MODEL',
    },
  ],
];

/**
 * The provider the environment configures, or `null` when none is: the first match in this
 * order (empty or blank variables count as unset):
 *
 * 1. `OPENAI_API_KEY` or `OPENAI_BASE_URL` → OpenAI, or the OpenAI-compatible server at
 *    `OPENAI_BASE_URL` (a local server needs no key but needs `OPENAI_MODEL`);
 *    also reads `OPENAI_MODEL`, `OPENAI_EMBEDDING_MODEL`.
 * 2. `ANTHROPIC_API_KEY` → Anthropic; also reads `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`.
 * 3. `OLLAMA_HOST` → Ollama; also reads `OLLAMA_MODEL`, `OLLAMA_EMBEDDING_MODEL`,
 *    `OLLAMA_API_KEY`.
 *
 * Seed 000's `LLM_PROVIDER` (`openai`, `anthropic`, `ollama`, or `local` for Ollama; any
 * case) skips this order and builds the provider it names, whichever keys are set (another
 * value is a `ConfigError` naming `LLM_PROVIDER`); with it, `LLM_MODEL` is the model when the
 * provider's own `*_MODEL` is unset. The `type` and `model` options win over both.
 *
 * The first match is built or fails: a variable that chooses a provider it cannot build (e.g.
 * `OPENAI_BASE_URL` of a local server without `OPENAI_MODEL`) throws `ConfigError` naming the
 * missing variable instead of falling through to the next provider. The result's
 * `description` and `reason` say what was chosen and why; neither contains a key or a
 * variable's value other than the model and the URL (without credentials or query).
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { providerFromEnv } from 'cortexis/providers';
 *
 * const provider = providerFromEnv(process.env);
 * console.log(provider ? `Model: ${provider.description}, because ${provider.reason}` : 'Offline');
 * const engine = createChatEngine(provider ? { llm: provider.llm } : {});
 * ```
 */
export function providerFromEnv(
  env: Environment,
  options: ProviderFromEnvOptions = {},
): EnvironmentProvider | null {
  const get = (key: string): string | undefined => env[key]?.trim() || undefined;
  // Seed 000's `LLM_PROVIDER` (and `LLM_MODEL`) choose like the `type` (and `model`) options,
  // which win over them.
  const named = options.type === undefined ? providerNamedByEnv(get('LLM_PROVIDER')) : undefined;
  const wanted = options.type ?? named;
  const chosen =
    named === undefined || options.model?.trim() || !get('LLM_MODEL')
      ? options
      : { ...options, modelFallback: get('LLM_MODEL') };
  for (const [type, variables] of PRECEDENCE) {
    if (wanted !== undefined && wanted !== type) continue;
    const set = variables.triggers.filter((name) => get(name) !== undefined);
    if (wanted === undefined && set.length === 0) continue;
    const reason =
      options.type !== undefined
        ? `type '${type}' was requested`
        : named !== undefined
          ? `LLM_PROVIDER is '${get('LLM_PROVIDER')!.toLowerCase()}'`
          : type === 'openai' && get(variables.apiKey) === undefined
            ? `${variables.baseURL} is set (an OpenAI-compatible server, no ${variables.apiKey})`
            : `${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set`;
    return { ...build(type, variables, get, chosen), reason };
  }
  if (options.type !== undefined) {
    throw new ConfigError(`Unknown provider type '${String(options.type)}'`, [
      { path: 'type', message: `must be one of ${PRECEDENCE.map(([type]) => type).join(', ')}` },
    ]);
  }
  return null;
}

/** Values of seed 000's `LLM_PROVIDER` and the provider each names (`local` is Ollama). */
const LLM_PROVIDER_VALUES: Readonly<Record<string, ProviderType>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  ollama: 'ollama',
  local: 'ollama',
};

/** The provider `LLM_PROVIDER` names (undefined when unset); a `ConfigError` for another value. */
function providerNamedByEnv(value: string | undefined): ProviderType | undefined {
  if (value === undefined) return undefined;
  const type = Object.hasOwn(LLM_PROVIDER_VALUES, value.toLowerCase())
    ? LLM_PROVIDER_VALUES[value.toLowerCase()]
    : undefined;
  if (type === undefined) {
    // The value is not echoed: a misplaced secret must not reach a log.
    throw new ConfigError('LLM_PROVIDER names no provider', [
      {
        path: 'LLM_PROVIDER',
        message: `must be one of ${Object.keys(LLM_PROVIDER_VALUES).join(', ')}`,
      },
    ]);
  }
  return type;
}

/** Builds one provider from its variables; a `ConfigError` names the variable to set. */
function build(
  type: ProviderType,
  variables: ProviderVariables,
  get: (key: string) => string | undefined,
  options: ProviderFromEnvOptions & { readonly modelFallback?: string | undefined },
): ProviderBundle {
  const model = options.model?.trim() || undefined;
  try {
    return createProvider({
      type,
      apiKey: get(variables.apiKey),
      baseURL: get(variables.baseURL),
      model: model ?? get(variables.model) ?? options.modelFallback,
      embeddingModel: variables.embeddingModel ? get(variables.embeddingModel) : undefined,
      fetch: options.fetch,
    });
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    throw inTermsOfVariables(error, variables, model !== undefined);
  }
}

/**
 * The factory's error with each config field replaced by the variable that sets it, e.g.
 * `needs an API key: set apiKey` → `needs an API key: set OPENAI_API_KEY`.
 */
function inTermsOfVariables(
  error: ConfigError,
  variables: ProviderVariables,
  modelGiven: boolean,
): ConfigError {
  const names: Record<string, string | undefined> = {
    apiKey: variables.apiKey,
    baseURL: variables.baseURL,
    host: variables.baseURL,
    model: modelGiven ? undefined : variables.model,
    embeddingModel: variables.embeddingModel,
  };
  const issues: FieldIssue[] = error.issues.map((issue) => ({
    ...issue,
    path: names[issue.path] ?? issue.path,
  }));
  const field = error.issues[0]?.path;
  const name = field === undefined ? undefined : names[field];
  let message = error.message;
  if (field !== undefined && name !== undefined) {
    message = message.endsWith(`set ${field}`)
      ? `${message.slice(0, -field.length)}${name}`
      : `${message} (from ${name})`;
  }
  return new ConfigError(message, issues, { cause: error });
}
