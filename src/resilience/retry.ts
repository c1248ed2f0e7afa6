/**
 * Retry policy for provider calls: a few retries with exponential backoff and jitter, only
 * for errors a retry can fix (network failures, timeouts, HTTP 408/409/429/5xx), honouring
 * the provider's `Retry-After`. Never retries aborts, 400/401/403/404, validation errors or
 * an open circuit. A final failure after retries keeps every attempt's error (`RetryError`).
 *
 * Hand-written rather than `p-retry`: p-retry computes every delay from the attempt number
 * alone (no per-error delay, so `Retry-After` cannot be honoured without sleeping inside its
 * callbacks on top of its own backoff), rejects an abort with the raw `signal.reason`, and
 * offers no injectable sleep or randomness for deterministic tests.
 */
import { AbortError, CortexisError, isRetryableStatus } from '../errors/index.js';
import { sleep as abortableSleep } from '../util/sleep.js';
import { CircuitOpenError, RetryError, type RetryStopReason } from './errors.js';

/** How retries are made. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  readonly retries: number;
  /** Backoff before the first retry, ms; doubles per retry (default 500). */
  readonly minDelayMs: number;
  /** Longest wait before a retry, also the cap on `retryAfterMs`, ms (default 20 000). */
  readonly maxDelayMs: number;
  /** Which errors are retried (default {@link isRetryableError}). */
  readonly isRetryable?: ((error: unknown) => boolean) | undefined;
  /** Source of randomness for the jitter, in [0, 1) (default `Math.random`). */
  readonly random?: (() => number) | undefined;
}

/** A retry about to happen. */
export interface RetryInfo {
  /** Which retry this is: 1 for the first retry (the second attempt), up to `retries`. */
  readonly attempt: number;
  /** How long the call waits before it, ms. */
  readonly delayMs: number;
  /** The error of the attempt that failed. */
  readonly error: unknown;
}

/** Options of {@link withRetry}. */
export interface RetryOptions extends RetryPolicy {
  /** Cancels the call and any wait between attempts; then rejects with `AbortError`. */
  readonly signal?: AbortSignal | undefined;
  /** Called before each retry's wait. Must not throw (it is not guarded). */
  readonly onRetry?: ((info: RetryInfo) => void) | undefined;
  /** Called with every failed attempt's error and its 1-based attempt number. */
  readonly onError?: ((error: unknown, attempt: number) => void) | undefined;
  /** Waits between attempts (default: an abortable `setTimeout`); inject one in tests. */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /**
   * Time left of the call's total deadline, ms (default: unlimited). A retry whose wait would
   * use it up is not made: the call stops with reason `deadline-exceeded`.
   */
  readonly remainingMs?: (() => number) | undefined;
}

/** Whether a retry after `delayMs` still fits the deadline (`remainingMs`). */
export function fitsDeadline(delayMs: number, remainingMs: (() => number) | undefined): boolean {
  return remainingMs === undefined || delayMs < remainingMs();
}

const NETWORK_MESSAGES = [
  'fetch failed', // Node (undici)
  'failed to fetch', // Chromium
  'networkerror when attempting to fetch resource', // Firefox
  'load failed', // Safari
  'network request failed', // React Native, polyfills
  'network error',
  'terminated', // undici: the body stream was cut
  'socket hang up',
];

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** Whether the error is a cancellation: an `AbortError` of ours or of the platform. */
export function isAbortError(error: unknown): boolean {
  if (CortexisError.isInstance(error)) return error.code === 'aborted';
  return field(error, 'name') === 'AbortError';
}

/** Whether a non-cortexis error is a network failure of `fetch` or a socket (best effort). */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = field(error, 'code') ?? field(error.cause, 'code');
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (error.name !== 'TypeError' && error.name !== 'Error') return false;
  const message = error.message.toLowerCase();
  return NETWORK_MESSAGES.some((text) => message.startsWith(text));
}

/**
 * Whether retrying the same call may succeed: network failures, timeouts, and cortexis
 * errors marked `retryable` (a `ProviderError` with 408, 409, 429 or 5xx). Never an abort,
 * an open circuit, an HTTP status outside those, or any other error.
 */
export function isRetryableError(error: unknown): boolean {
  if (isAbortError(error) || CircuitOpenError.isInstance(error)) return false;
  if (CortexisError.isInstance(error)) {
    const status = field(error, 'status');
    if (typeof status === 'number' && !isRetryableStatus(status)) return false;
    return error.retryable;
  }
  if (field(error, 'name') === 'TimeoutError') return true; // AbortSignal.timeout()
  return isNetworkError(error);
}

/** The wait a provider asked for (`Retry-After` / `retry-after-ms`), when the error carries one. */
export function retryAfterOf(error: unknown): number | undefined {
  const value = field(error, 'retryAfterMs');
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Exponential backoff with "equal jitter" for the given retry (1-based): half of
 * `minDelayMs · 2^(retry-1)` (capped at `maxDelayMs`) plus a random share of the other half.
 */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.max(0, retry - 1));
  const random = Math.min(Math.max((policy.random ?? Math.random)(), 0), 1);
  return Math.round(base / 2 + (random * base) / 2);
}

/**
 * The wait before retry number `retry` after `error`, or `undefined` when the call must not
 * be retried (the error is not retryable, or the retries are used up). A provider's
 * `retryAfterMs` wins over the backoff, capped at `maxDelayMs`.
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  error: unknown,
  retry: number,
): number | undefined {
  if (retry > policy.retries) return undefined;
  if (!(policy.isRetryable ?? isRetryableError)(error)) return undefined;
  const retryAfter = retryAfterOf(error);
  return retryAfter !== undefined
    ? Math.min(retryAfter, policy.maxDelayMs)
    : backoffDelay(retry, policy);
}

/**
 * The error a call rejects with after its attempts: the only error when there was one
 * attempt, an abort or an open circuit as they are, otherwise a `RetryError` keeping all.
 */
export function finalRetryError(errors: readonly unknown[], reason: RetryStopReason): unknown {
  const last = errors[errors.length - 1];
  if (errors.length <= 1 || isAbortError(last) || CircuitOpenError.isInstance(last)) return last;
  return new RetryError(errors, reason);
}

/** An `AbortError` for a call cancelled through `signal` (the error itself when it is one). */
export function abortErrorOf(error: unknown, signal: AbortSignal | undefined): AbortError {
  if (CortexisError.isInstance(error) && error.code === 'aborted') return error as AbortError;
  return new AbortError('The operation was aborted', { cause: signal?.reason ?? error });
}

/**
 * Runs `call` and retries it per the policy. Rejects with the first error when it is not
 * retryable, with a `RetryError` (every attempt's error) when the retries are used up, and
 * with an `AbortError` as soon as `signal` fires (also during a wait).
 *
 * @example
 * const result = await withRetry((attempt) => llm.generate(request), { retries: 2, minDelayMs: 500, maxDelayMs: 20_000 });
 */
export async function withRetry<T>(
  call: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { signal } = options;
  const sleep = options.sleep ?? abortableSleep;
  const errors: unknown[] = [];
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw abortErrorOf(undefined, signal);
    try {
      return await call(attempt);
    } catch (error) {
      errors.push(error);
      options.onError?.(error, attempt);
      if (signal?.aborted || isAbortError(error)) throw abortErrorOf(error, signal);
      const delayMs = nextRetryDelay(options, error, attempt);
      if (delayMs === undefined) {
        const retryable = (options.isRetryable ?? isRetryableError)(error);
        throw finalRetryError(errors, retryable ? 'max-retries-exceeded' : 'error-not-retryable');
      }
      if (!fitsDeadline(delayMs, options.remainingMs)) {
        throw finalRetryError(errors, 'deadline-exceeded');
      }
      options.onRetry?.({ attempt, delayMs, error });
      try {
        await sleep(delayMs, signal);
      } catch (sleepError) {
        throw signal?.aborted || isAbortError(sleepError)
          ? abortErrorOf(sleepError, signal)
          : sleepError;
      }
    }
  }
}
