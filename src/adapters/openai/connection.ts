/**
 * The connection settings shared by the OpenAI chat and embedding adapters: base URL, API key
 * (required for OpenAI's own API), organization, project and extra headers resolved into the
 * request headers, and the model id (required for any server other than OpenAI).
 */
import { checkBaseURL, checkNonEmpty, invalidSetting } from '../http/settings.js';
import type { FetchFunction, HeaderValues } from '../http/post-json.js';

/** OpenAI's API base URL, the default `baseURL`. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

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

/** The resolved connection: provider name, base URL, headers, fetch and API key. */
export interface Connection {
  readonly name: string;
  readonly baseURL: string;
  readonly isOpenAI: boolean;
  readonly headers: HeaderValues;
  readonly fetch: FetchFunction | undefined;
  readonly apiKey: string | undefined;
}

/** Validates the connection settings and builds the request headers. */
export function resolveConnection(settings: OpenAIConnectionSettings): Connection {
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

/** The headers with lower-case names, so they override the defaults whatever their case. */
function lowerCaseKeys(headers: HeaderValues | undefined): HeaderValues {
  const result: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers ?? {})) result[key.toLowerCase()] = value;
  return result;
}

/** The model id: the one set, else the default on OpenAI's API (required elsewhere). */
export function resolveModel(connection: Connection, model: string | undefined, fallback: string) {
  if (model !== undefined) {
    checkNonEmpty(connection.name, 'model', model);
    return model;
  }
  if (!connection.isOpenAI) {
    throw invalidSetting(connection.name, 'model', 'is required for a server other than OpenAI');
  }
  return fallback;
}
