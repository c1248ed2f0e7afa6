/** The HTTP form of an error: status, headers and the client-safe body. */
import { CortexisError } from '../errors/index.js';
import { clientError, errorStatus, type ErrorBody } from '../errors/client.js';

/** Longest message, issue path or issue message a client gets back (its own value may be huge). */
export const MAX_ECHO = 200;
/** Most issues a client gets back. */
const MAX_ISSUES = 20;

/** At most `max` UTF-16 units of `text`, never ending in half a surrogate pair, marked `…`. */
export function clip(text: string, max: number = MAX_ECHO): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * The body with every client-echoed string bounded: an unknown key or value of 100k characters
 * comes back as a {@link MAX_ECHO}-character slice, and at most 20 issues.
 */
function bounded(body: ErrorBody): ErrorBody {
  return {
    ...body,
    message: clip(body.message, 2 * MAX_ECHO),
    ...(body.issues === undefined
      ? {}
      : {
          issues: body.issues
            .slice(0, MAX_ISSUES)
            .map((issue) => ({ path: clip(issue.path), message: clip(issue.message) })),
        }),
  };
}

/** The HTTP status and body for any thrown value. Unknown errors never leak their message. */
export function errorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Headers;
} {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  const body = bounded(clientError(error));
  if (body.retryAfterMs !== undefined) {
    headers.set('retry-after', String(Math.max(1, Math.ceil(body.retryAfterMs / 1000))));
  }
  return { status: CortexisError.isInstance(error) ? errorStatus(error.code) : 500, body, headers };
}
