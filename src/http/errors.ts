/** The HTTP form of an error: status, headers and the client-safe body. */
import { CortexisError } from '../errors/index.js';
import { clientError, errorStatus, type ErrorBody } from '../errors/client.js';

/** The HTTP status and body for any thrown value. Unknown errors never leak their message. */
export function errorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Headers;
} {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  const body = clientError(error);
  if (body.retryAfterMs !== undefined) {
    headers.set('retry-after', String(Math.max(1, Math.ceil(body.retryAfterMs / 1000))));
  }
  return { status: CortexisError.isInstance(error) ? errorStatus(error.code) : 500, body, headers };
}
