/**
 * Errors of the resilience layer: the circuit is open (no provider call was made), and a
 * call failed after retries (every attempt's error kept).
 */
import { CortexisError, ProviderError, type ErrorCode } from '../errors/index.js';

const circuitOpenMarker = Symbol.for('cortexis.error.circuit-open');
const retryMarker = Symbol.for('cortexis.error.retry');

/**
 * The circuit breaker of a provider is open: the call was refused without reaching the
 * provider. A `ProviderError` (code `provider_error`), not retryable; `retryAfterMs` says
 * when the breaker lets a trial call through. The engine answers with a fallback instead.
 */
export class CircuitOpenError extends ProviderError {
  readonly [circuitOpenMarker] = true;
  /** The breaker key (provider name, or provider and conversation). */
  readonly key: string;

  constructor(init: {
    /** Provider name. */
    provider: string;
    /** The breaker key. */
    key: string;
    /** Time until the breaker lets a trial call through, ms. */
    retryAfterMs: number;
  }) {
    super(
      `${init.provider} is unavailable: circuit breaker '${init.key}' is open (retry in ${Math.ceil(init.retryAfterMs)} ms)`,
      { provider: init.provider, retryable: false, retryAfterMs: init.retryAfterMs },
    );
    this.name = 'CircuitOpenError';
    this.key = init.key;
  }

  /** True for a `CircuitOpenError` from this copy of the package or another. */
  static override isInstance(error: unknown): error is CircuitOpenError {
    return typeof error === 'object' && error !== null && circuitOpenMarker in error;
  }
}

/** Why retrying stopped. */
export type RetryStopReason = 'max-retries-exceeded' | 'error-not-retryable' | 'deadline-exceeded';

/**
 * A call failed after more than one attempt. It keeps every attempt's error in `errors`
 * (oldest first) and takes the `code`, `retryable` flag and public fields (`status`,
 * `provider`, `retryAfterMs`, `timeoutMs`, …) of the last one, so code-based checks such as
 * `ProviderError.isInstance(error)` and `error.status` still describe the final failure.
 * A call that failed on its first attempt throws that error unwrapped.
 */
export class RetryError extends CortexisError {
  readonly [retryMarker] = true;
  /** Every attempt's error, oldest first. */
  readonly errors: readonly unknown[];
  /** The last attempt's error. */
  readonly lastError: unknown;
  /** Why retrying stopped. */
  readonly reason: RetryStopReason;
  /** Number of attempts made. */
  readonly attempts: number;

  constructor(errors: readonly unknown[], reason: RetryStopReason) {
    const lastError = errors[errors.length - 1];
    const last = CortexisError.isInstance(lastError) ? lastError : undefined;
    const code: ErrorCode = last?.code ?? 'provider_error';
    const detail = lastError instanceof Error ? lastError.message : String(lastError);
    super(
      code,
      reason === 'max-retries-exceeded'
        ? `Failed after ${errors.length} attempts. Last error: ${detail}`
        : reason === 'deadline-exceeded'
          ? `Failed after ${errors.length} attempts: the call's deadline left no time for another. Last error: ${detail}`
          : `Failed after ${errors.length} attempts with a non-retryable error: ${detail}`,
      last?.retryable ?? false,
      { cause: lastError },
    );
    this.name = 'RetryError';
    this.errors = errors;
    this.lastError = lastError;
    this.reason = reason;
    this.attempts = errors.length;
    // Public fields of the last error (status, provider, retryAfterMs, timeoutMs, scope, issues…).
    if (last) {
      for (const [field, value] of Object.entries(last)) {
        if (!Object.hasOwn(this, field)) {
          Object.defineProperty(this, field, { value, enumerable: true });
        }
      }
    }
  }

  /** True for a `RetryError` from this copy of the package or another. */
  static override isInstance(error: unknown): error is RetryError {
    return typeof error === 'object' && error !== null && retryMarker in error;
  }
}
