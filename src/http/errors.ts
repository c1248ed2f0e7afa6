import { CortexisError, RateLimitError, ValidationError } from '../errors/index.js';

/** The JSON body of an error response. */
export interface ErrorBody {
  /** Stable error code (`validation_error`, `not_found`, …). */
  readonly code: string;
  /** Human-readable message; never internals of a provider or the server. */
  readonly message: string;
  /** Invalid fields, for `validation_error`. */
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
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

/** The HTTP status and body for any thrown value. Unknown errors never leak their message. */
export function errorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Headers;
} {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  if (!CortexisError.isInstance(error)) {
    return {
      status: 500,
      body: { code: 'internal_error', message: 'Internal server error' },
      headers,
    };
  }
  const status = STATUS[error.code] ?? 500;
  if (RateLimitError.isInstance(error)) {
    headers.set('retry-after', String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
  }
  if (ValidationError.isInstance(error)) {
    return {
      status,
      body: { code: error.code, message: error.message, issues: error.issues },
      headers,
    };
  }
  // Provider and server failures are reported by code only: their messages may carry internals.
  const message =
    error.code === 'provider_error'
      ? 'The model is unavailable; please try again later'
      : error.code === 'timeout'
        ? 'The model took too long to answer'
        : status >= 500
          ? 'Internal server error'
          : error.message;
  return { status, body: { code: error.code, message }, headers };
}
