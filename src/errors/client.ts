/**
 * What a client may see of an error: its stable code, its HTTP status and a message that never
 * carries internals. Shared by the HTTP handler, SSE `error` frames and UI message streams.
 */
import { CortexisError, RateLimitError, ValidationError } from './index.js';

/** The JSON body of an error response, and the `error` of an SSE `error` frame. */
export interface ErrorBody {
  /** Stable error code (`validation_error`, `not_found`, …). */
  readonly code: string;
  /** Human-readable message; never internals of a provider or the server. */
  readonly message: string;
  /** Invalid fields, for `validation_error`. */
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
  /** How long to wait before trying again, ms, for `rate_limited`. */
  readonly retryAfterMs?: number;
}

const STATUS: Readonly<Record<string, number>> = {
  validation_error: 400,
  config_error: 500,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  provider_error: 502,
  timeout: 504,
  aborted: 499,
};

/** The HTTP status of an error code (500 for codes not listed). */
export function errorStatus(code: string): number {
  return STATUS[code] ?? 500;
}

/**
 * The client-safe form of any thrown value: its code and a message fit for a browser. Unknown
 * errors, provider and server failures are reported by code with a generic message, since their
 * own messages may carry internals (URLs with credentials, addresses, file paths, SQL errors).
 * Only a validation error's message and issues, and the message of a client error (4xx) other
 * than a provider's, come from the error itself. The HTTP handler's JSON answers and every SSE
 * `error` frame (`ChatStream.toSSE()`) use it.
 */
export function clientError(error: unknown): ErrorBody {
  if (!CortexisError.isInstance(error)) {
    return { code: 'internal_error', message: 'Internal server error' };
  }
  if (ValidationError.isInstance(error)) {
    return { code: error.code, message: error.message, issues: error.issues };
  }
  if (RateLimitError.isInstance(error)) {
    return { code: error.code, message: error.message, retryAfterMs: error.retryAfterMs };
  }
  return { code: error.code, message: publicMessage(error.code, error.message) };
}

/**
 * The message a client may see for an error with `code` and `message`: the message itself for
 * a client error (4xx), a generic one by code for provider and server failures.
 */
export function publicMessage(code: string, message: string): string {
  if (code === 'provider_error') return 'The model is unavailable; please try again later';
  if (code === 'timeout') return 'The model took too long to answer';
  return errorStatus(code) >= 500 ? 'Internal server error' : message;
}
