/**
 * The one HTTP call every provider adapter makes: a `fetch` POST with a JSON body. It maps
 * every failure to a typed error the resilience layer can act on and never retries or times
 * out by itself: HTTP errors become `ProviderError` (`status`, `retryable`, `retryAfterMs`),
 * network failures a retryable `ProviderError`, a fired `signal` an `AbortError`. No `node:`
 * imports: it runs in browsers and edge runtimes.
 * @module
 */
import * as z from 'zod/mini';
import { AbortError, ProviderError, isRetryableStatus } from '../../errors/index.js';

/** A `fetch`-compatible function; inject one to proxy, log or test requests. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Header values; `undefined` ones are left out. */
export type HeaderValues = Readonly<Record<string, string | undefined>>;

/** What {@link postJson} sends. */
export interface PostJsonRequest {
  /** Provider name, for errors. */
  readonly provider: string;
  /** Absolute URL. */
  readonly url: string;
  /** Request headers (`content-type: application/json` is added unless set). */
  readonly headers?: HeaderValues | undefined;
  /** The body, serialised with `JSON.stringify`. */
  readonly body: unknown;
  /** The `fetch` to use (default: the global one, looked up at call time). */
  readonly fetch?: FetchFunction | undefined;
  /** Cancels the request and the body read; rejects with `AbortError`. */
  readonly signal?: AbortSignal | undefined;
  /** Values (API keys) that must never appear in an error message. */
  readonly secrets?: readonly (string | undefined)[] | undefined;
}

/** Longest provider error text kept in a `ProviderError` message. */
const MAX_DETAIL_LENGTH = 500;

/** The error an aborted signal turns into, keeping the signal's reason as the cause. */
export function abortError(signal: AbortSignal | undefined): AbortError {
  return new AbortError('The operation was aborted', { cause: signal?.reason });
}

/**
 * Posts `body` as JSON and resolves with the response when its status is 2xx (the body
 * unread, for {@link readJson} or a stream reader). Rejects with `ProviderError` for any
 * other status or a network failure, and `AbortError` when `signal` fires.
 */
export async function postJson(request: PostJsonRequest): Promise<Response> {
  const { provider, signal } = request;
  if (signal?.aborted) throw abortError(signal);
  const doFetch = request.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [key, value] of Object.entries(request.headers ?? {})) {
    if (value !== undefined) headers[key.toLowerCase()] = value;
  }
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(request.body),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    throw readError(error, provider, signal, request.secrets, 'request failed');
  }
  if (response.ok) return response;
  throw await httpError(response, provider, signal, request.secrets);
}

/** Reads a 2xx response body as JSON; a malformed body is a non-retryable `ProviderError`. */
export async function readJson(
  response: Response,
  provider: string,
  signal?: AbortSignal,
): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw readError(error, provider, signal, [], 'response body could not be read');
  }
  if (signal?.aborted) throw abortError(signal);
  return parseJson(text, provider);
}

/** `JSON.parse` guarded: malformed text is a non-retryable `ProviderError` naming the provider. */
export function parseJson(text: string, provider: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProviderError(`${provider} sent malformed JSON: ${truncate(text, 120)}`, {
      provider,
      retryable: false,
      cause: error,
    });
  }
}

/**
 * Parses `value` with a tolerant response schema; a mismatch is a non-retryable
 * `ProviderError` naming the provider and what was being read.
 */
export function parseResponse<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  provider: string,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue === undefined ? '' : ` at ${issue.path.map(String).join('.') || '(root)'}`;
  throw new ProviderError(`${provider} sent an unexpected ${what}${where}`, {
    provider,
    retryable: false,
    cause: result.error,
  });
}

/**
 * Maps an error thrown by `fetch` or a body read: `AbortError` when the signal fired, else a
 * retryable `ProviderError` (a network failure or a connection cut mid-body).
 */
export function readError(
  error: unknown,
  provider: string,
  signal: AbortSignal | undefined,
  secrets: readonly (string | undefined)[] | undefined,
  what: string,
): AbortError | ProviderError {
  if (signal?.aborted) return abortError(signal);
  if (ProviderError.isInstance(error) || AbortError.isInstance(error)) return error;
  const detail = redact(describeCause(error), secrets);
  return new ProviderError(`${provider} ${what}: ${detail}`, {
    provider,
    retryable: true,
    cause: error,
  });
}

/** The `ProviderError` a stream that ended before its end marker turns into (retryable). */
export function streamCutError(provider: string): ProviderError {
  return new ProviderError(`${provider} stream ended before its end marker`, {
    provider,
    retryable: true,
  });
}

/** Builds the `ProviderError` of a non-2xx response, reading the provider's error message. */
async function httpError(
  response: Response,
  provider: string,
  signal: AbortSignal | undefined,
  secrets: readonly (string | undefined)[] | undefined,
): Promise<ProviderError | AbortError> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    if (signal?.aborted) return abortError(signal);
  }
  const { status } = response;
  const detail = redact(errorDetail(text), secrets);
  const statusText = response.statusText ? ` ${response.statusText}` : '';
  return new ProviderError(
    `${provider} responded ${status}${statusText}${detail ? `: ${detail}` : ''}`,
    {
      provider,
      status,
      retryable: isRetryableStatus(status),
      retryAfterMs: parseRetryAfter(response.headers),
    },
  );
}

const errorBodySchema = z.object({
  error: z.optional(
    z.union([
      z.string(),
      z.object({
        message: z.optional(z.nullable(z.string())),
        type: z.optional(z.nullable(z.string())),
        code: z.optional(z.nullable(z.union([z.string(), z.number()]))),
      }),
    ]),
  ),
  message: z.optional(z.nullable(z.string())),
});

/**
 * The provider's own error text from an error body: OpenAI `{ error: { message, code } }`,
 * Anthropic `{ error: { type, message } }`, Ollama `{ error: '…' }`, or plain text.
 */
export function errorDetail(body: string): string {
  const trimmed = body.trim();
  if (trimmed === '') return '';
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return truncate(trimmed.replace(/\s+/g, ' '), MAX_DETAIL_LENGTH);
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return '';
  const { error, message } = parsed.data;
  if (typeof error === 'string') return truncate(error, MAX_DETAIL_LENGTH);
  const text = error?.message ?? message ?? '';
  const kind = error?.code ?? error?.type;
  const suffix = kind === undefined || kind === null || kind === '' ? '' : ` (${kind})`;
  return truncate(`${text}${suffix}`.trim(), MAX_DETAIL_LENGTH);
}

/**
 * Server-requested wait in ms: `retry-after-ms` (ms), else `Retry-After` as seconds or an HTTP
 * date (a date in the past gives 0). Undefined when absent or unparsable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Removes secrets (and anything shaped like an OpenAI/Anthropic key) from a message. */
export function redact(text: string, secrets: readonly (string | undefined)[] | undefined): string {
  let result = text;
  for (const secret of secrets ?? []) {
    if (secret !== undefined && secret.length >= 4) {
      result = result.split(secret).join('[redacted]');
    }
  }
  return result.replace(/\bsk-[\w*.-]{6,}/g, '[redacted]');
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`;
}
