/**
 * Resilience around provider calls: timeouts, retries with backoff, a keyed circuit
 * breaker, and the deterministic fallback answer. Core entry: no Node builtins.
 *
 * @example
 * ```ts
 * import { createResilientLLM, CircuitOpenError, fallbackAnswer } from './resilience/index.js';
 *
 * const llm = createResilientLLM(provider, config.resilience, { onBreaker: (event) => log(event) });
 * try {
 *   return await llm.generate(request);
 * } catch (error) {
 *   if (CircuitOpenError.isInstance(error)) return { text: fallbackAnswer(request.sources ?? []) };
 *   throw error;
 * }
 * ```
 * @module
 */
export { CircuitOpenError, RetryError } from './errors.js';
export type { RetryStopReason } from './errors.js';
export {
  backoffDelay,
  finalRetryError,
  isAbortError,
  isNetworkError,
  isRetryableError,
  nextRetryDelay,
  retryAfterOf,
  withRetry,
} from './retry.js';
export type { RetryInfo, RetryOptions, RetryPolicy } from './retry.js';
export { createDeadline, withStreamTimeouts, withTimeout } from './timeout.js';
export type { CallDeadline, StreamTimeoutOptions, TimeoutOptions } from './timeout.js';
export { countsAsFailure, createCircuitBreaker } from './breaker.js';
export type {
  BreakerPermit,
  BreakerSnapshot,
  BreakerState,
  BreakerStateChange,
  CircuitBreaker,
  CircuitBreakerSettings,
} from './breaker.js';
export { createResilientEmbedder, createResilientLLM } from './resilient-llm.js';
export type {
  ProviderRateLimitEvent,
  ResilienceBreakerEvent,
  ResilienceCallContext,
  ResilienceHooks,
  ResilienceRetryEvent,
  ResilienceRuntime,
  ResilientEmbedder,
  ResilientLLM,
  ResilientOperation,
} from './resilient-llm.js';
export {
  RATE_LIMIT_DEFAULTS,
  RESILIENCE_DEFAULTS,
  breakerSettingsSchema,
  floodSettingsSchema,
  rateLimitSettingsSchema,
  resilienceSettingsSchema,
  resolveResilienceSettings,
} from './settings.js';
export type {
  RateLimitSettings,
  RateLimitSettingsInput,
  ResilienceSettings,
  ResilienceSettingsInput,
} from './settings.js';
export {
  DEFAULT_FALLBACK_EMPTY,
  DEFAULT_FALLBACK_TEMPLATE,
  fallbackAnswer,
  summarizeSource,
} from './fallback.js';
export type { FallbackOptions, FallbackSource } from './fallback.js';
