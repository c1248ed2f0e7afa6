/**
 * What a turn reports about its model calls: the `retry` and `rateLimit` events of the
 * resilience layer (also used by the engine for calls outside a turn), and the model as the
 * generate span sees it (finish reason, time to the first streamed chunk).
 */
import type { RateLimitEvent, RetryEvent } from '../../events.js';
import type { FinishReason, LLMProvider, LLMStreamPart } from '../../ports/llm-provider.js';
import type { TraceSpan } from '../../ports/tracer.js';
import type {
  ProviderRateLimitEvent,
  ResilienceRetryEvent,
} from '../../resilience/resilient-llm.js';

/** The `retry` event of a resilience retry. */
export function retryEvent(
  turnId: string | null,
  event: ResilienceRetryEvent,
  sessionId: string | null = null,
): RetryEvent {
  return {
    turnId,
    sessionId,
    provider: event.provider,
    operation: event.operation,
    attempt: event.attempt,
    delayMs: event.delayMs,
    error: event.error,
  };
}

/** The `rateLimit` event of a provider's HTTP 429. */
export function providerRateLimitEvent(
  turnId: string | null,
  event: ProviderRateLimitEvent,
  sessionId: string | null = null,
): RateLimitEvent {
  return {
    turnId,
    sessionId,
    scope: 'provider',
    key: event.key,
    reason: 'provider',
    retryAfterMs: event.retryAfterMs,
  };
}

/** OpenTelemetry's names of the finish reasons. */
const FINISH_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  other: 'other',
};

/**
 * The model as the generate span sees it: the same calls, reporting the finish reason and
 * the time to the first streamed chunk on the span. Used only when the turn is traced.
 */
export function observeModel(llm: LLMProvider, span: TraceSpan, started: number): LLMProvider {
  const finished = (reason: FinishReason): void =>
    span.setAttributes({ 'gen_ai.response.finish_reasons': [FINISH_REASONS[reason]] });
  return {
    name: llm.name,
    specificationVersion: llm.specificationVersion,
    metadata: llm.metadata,
    async generate(request) {
      const result = await llm.generate(request);
      finished(result.finishReason);
      return result;
    },
    async *stream(request): AsyncGenerator<LLMStreamPart> {
      let first = true;
      for await (const part of llm.stream(request)) {
        if (first && part.type === 'text-delta') {
          first = false;
          span.setAttributes({
            'gen_ai.response.time_to_first_chunk': (performance.now() - started) / 1000,
          });
        } else if (part.type === 'finish') {
          finished(part.finishReason);
        }
        yield part;
      }
    },
  };
}
