/**
 * Request plumbing shared by every route of `cortexis/http`: JSON bodies within a size limit,
 * path segments, query parameters, JSON responses, and the per-user rate limit.
 * @module
 */
import { rateLimitKey } from '../util/rate-limit-key.js';
import { RateLimitError, ValidationError } from '../errors/index.js';
import type { RateLimitEvent } from '../events.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import { errorResponse } from './errors.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** A JSON response (no body for 204). */
export function json(status: number, body: unknown): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: JSON_HEADERS,
  });
}

/** The client-safe JSON error response of any error (see `errorResponse`). */
export function fail(error: unknown): Response {
  const { status, body, headers } = errorResponse(error);
  return new Response(JSON.stringify(body), { status, headers });
}

/** An HTTP-level refusal (413, 415, …) with its status and code. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Whether a `content-type` header names JSON (`application/json`, any parameters). */
export function isJsonContentType(header: string | null): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * Reads a JSON object body within the size limit; 413 when larger, 415 when a non-empty body
 * is not declared `application/json` (a cross-site form can send `text/plain` with cookies,
 * but not JSON), 400 when not JSON.
 */
export async function readJson(
  request: Request,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes)
    throw new HttpError(413, 'payload_too_large', `Body exceeds ${maxBytes} bytes`);
  if (!request.body) return {};
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new HttpError(413, 'payload_too_large', `Body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const text = new TextDecoder().decode(bytes).trim();
  if (text.length === 0) return {};
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError('Invalid body: not JSON', [
      { path: '(body)', message: 'must be JSON' },
    ]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError('Invalid body: must be a JSON object', [
      { path: '(body)', message: 'must be a JSON object' },
    ]);
  }
  return parsed as Record<string, unknown>;
}

/** Path segments, percent-decoded; null when a segment has a malformed escape (`%zz`). */
export function decodeSegments(path: string): string[] | null {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}

export function integerParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) {
    throw new ValidationError(`Invalid query: ${name}: must be an integer`, [
      { path: name, message: 'must be an integer' },
    ]);
  }
  return value;
}

export function booleanParam(url: URL, name: string): boolean | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  if (raw !== 'true' && raw !== 'false') {
    throw new ValidationError(`Invalid query: ${name}: must be true or false`, [
      { path: name, message: 'must be true or false' },
    ]);
  }
  return raw === 'true';
}

/** Who is asking, as the limiter needs it. */
export interface LimitedUser {
  readonly id: string;
  readonly anonymous?: boolean | undefined;
}

/** What a limit counts: chat messages, or new conversations. */
export type LimitBudget = 'message' | 'create';

/** Settings of {@link createRequestLimit}. */
export interface RequestLimitSettings {
  readonly clientIp?: ((request: Request) => string | null | undefined) | undefined;
  readonly onRateLimit?: ((event: RateLimitEvent) => void) | undefined;
}

/**
 * Returns the function that counts one request of a budget for the caller — per user, or per
 * client IP for an anonymous user — and throws `RateLimitError` when refused. Every route that
 * answers a chat message (native, AI SDK, OpenAI-compatible) counts in the same `message`
 * budget, so switching protocol gains nothing.
 */
export function createRequestLimit(
  limiter: RateLimiter | undefined,
  settings: RequestLimitSettings,
): (request: Request, user: LimitedUser, budget: LimitBudget) => Promise<void> {
  return async (request, user, budget) => {
    if (!limiter) return;
    const ip = settings.clientIp?.(request)?.trim() || undefined;
    const key = user.anonymous
      ? rateLimitKey(budget, 'ip', ip ?? 'unknown')
      : rateLimitKey(budget, 'user', user.id);
    const decision = await limiter.hit(key, Date.now(), { signal: request.signal });
    if (decision.allowed) return;
    const reason = decision.reason ?? 'window';
    try {
      settings.onRateLimit?.({
        turnId: null,
        scope: 'http',
        key,
        reason,
        retryAfterMs: decision.retryAfterMs,
        ...(ip === undefined ? {} : { ip }),
      });
    } catch {
      // A listener never breaks a request.
    }
    throw new RateLimitError(
      reason === 'flood'
        ? 'Requests are arriving too fast'
        : budget === 'create'
          ? 'Too many new conversations'
          : 'Too many messages',
      decision.retryAfterMs,
    );
  };
}
