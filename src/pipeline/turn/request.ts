/**
 * A turn's request before anything is loaded or stored: parsed, redacted and checked, then
 * counted against the engine's rate limit.
 */
import type { ResolvedConfig } from '../../config.js';
import { AbortError, RateLimitError } from '../../errors/index.js';
import type { EngineRuntime } from '../../runtime.js';
import { redactRequest } from '../../text/redact.js';
import { rateLimitKey } from '../../util/rate-limit-key.js';
import { inSpan, type TraceScope } from '../../util/tracing.js';
import { chatRequestSchema, parseInput } from '../../validate.js';
import { checkChatProfile } from './session.js';
import type { TurnRequest } from './state.js';

/**
 * The request of a turn, parsed and redacted, its mode resolved (absent: `chat` with a
 * `sessionId`, `query` without): a `ValidationError` (or `AbortError`) before anything is
 * stored.
 */
export function parseTurnRequest(config: ResolvedConfig, rawRequest: unknown): TurnRequest {
  const parsed = redactRequest(
    parseInput(chatRequestSchema(config.limits.maxMessageLength), rawRequest, 'chat request'),
    config.redact,
  );
  // No mode and no session is a stateless query (seed 001's default), never a silent new
  // session per call; naming a session continues it.
  const mode = parsed.mode ?? (parsed.sessionId === undefined ? 'query' : 'chat');
  const request: TurnRequest = { ...parsed, mode };
  const signal = request.signal;
  if (signal?.aborted) throw new AbortError('The turn was aborted before it started');
  if (request.chatProfile !== undefined) checkChatProfile(config, request.chatProfile);
  return request;
}

/**
 * Counts the turn against the engine's rate limit (when enabled); a `RateLimitError` (and a
 * `rateLimit` event) when over it.
 */
export async function enforceRateLimit(
  runtime: EngineRuntime,
  request: TurnRequest,
  turnId: string,
  scope: TraceScope | undefined,
): Promise<void> {
  const { events } = runtime;
  const { signal } = request;
  // rate-limit, before anything is loaded or stored: one budget per user across all of
  // their conversations (new ones included), so rotating conversation ids gains nothing
  const limiter = runtime.rateLimiter;
  if (limiter) {
    const key =
      request.userId === undefined
        ? rateLimitKey('turn', 'anonymous')
        : rateLimitKey('turn', 'user', request.userId);
    const decision = await inSpan(scope, 'cortexis.rate_limit', async (span) => {
      const hit = await limiter.hit(key, Date.now(), { signal });
      span?.setAttributes({ 'cortexis.rate_limit.allowed': hit.allowed });
      return hit;
    });
    if (!decision.allowed) {
      const reason = decision.reason ?? 'window';
      events.emit('rateLimit', {
        turnId,
        sessionId: request.sessionId ?? null,
        scope: 'engine',
        key,
        reason,
        retryAfterMs: decision.retryAfterMs,
      });
      throw new RateLimitError(
        reason === 'flood' ? 'Messages are arriving too fast' : 'Too many messages',
        decision.retryAfterMs,
        'engine',
      );
    }
  }
}
