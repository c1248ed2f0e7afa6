/**
 * Errors of the OpenAI-compatible routes: any thrown value as OpenAI's error body
 * (`{ error: { message, type, param, code } }`) with its status and headers.
 */
import { CortexisError, ValidationError } from '../errors/index.js';
import { errorResponse } from './errors.js';
import { HttpError } from './request.js';

/** The OpenAI error body. */
interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** OpenAI's `param` for an issue of ours (`messages.2.content` → `messages[2].content`). */
function toParam(path: string): string | null {
  if (path === '' || path === '(body)' || path === '(root)') return null;
  // Engine-level issues name the engine's request; the client only knows `messages`.
  if (path === 'message' || path === 'history' || path.startsWith('history.')) return 'messages';
  return path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/** OpenAI's error `type` for an HTTP status. */
function errorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The OpenAI error body and headers of any thrown value; generic for server failures. */
export function openAIError(error: unknown): {
  status: number;
  body: OpenAIErrorBody;
  headers: Headers;
} {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }),
      body: {
        error: {
          message: error.message,
          type: errorType(error.status),
          param: error.code === 'model_not_found' ? 'model' : null,
          code: error.code,
        },
      },
    };
  }
  if (!CortexisError.isInstance(error) && error instanceof SyntaxError) {
    return openAIError(
      new ValidationError('Invalid body: not JSON', [{ path: '(body)', message: 'must be JSON' }]),
    );
  }
  const { status, body, headers } = errorResponse(error);
  const code =
    status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : body.code;
  return {
    status,
    headers,
    body: {
      error: {
        message: body.message,
        type: errorType(status),
        param: toParam(body.issues?.[0]?.path ?? ''),
        code,
      },
    },
  };
}

/** A JSON response with OpenAI's error body. */
export function errorJson(error: unknown): Response {
  const { status, body, headers } = openAIError(error);
  return new Response(JSON.stringify(body), { status, headers });
}
