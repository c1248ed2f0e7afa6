/**
 * Every error cortexis throws is a `CortexisError` with a stable `code`. Checks use
 * `XxxError.isInstance(error)`, which works across two installed copies of the package.
 */

const marker = Symbol.for('cortexis.error');

/** Stable error codes. */
export type ErrorCode =
  | 'validation_error'
  | 'not_found'
  | 'rate_limited'
  | 'provider_error'
  | 'timeout'
  | 'aborted'
  | 'config_error'
  | 'conflict'
  | 'internal_error';

/** Options shared by every error. */
export interface CortexisErrorOptions {
  /** The underlying error. */
  readonly cause?: unknown;
}

/** Base class of every cortexis error. */
export class CortexisError extends Error {
  readonly [marker] = true;
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Whether retrying the same call may succeed. */
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, retryable = false, options?: CortexisErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CortexisError';
    this.code = code;
    this.retryable = retryable;
  }

  /** True for any cortexis error, from this copy of the package or another. */
  static isInstance(error: unknown): error is CortexisError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

function hasCode<T extends CortexisError>(error: unknown, code: ErrorCode): error is T {
  return CortexisError.isInstance(error) && error.code === code;
}

/** One invalid field of an input. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `message` or `docs.2.text`. */
  readonly path: string;
  /** What is wrong with it. */
  readonly message: string;
}

/** An input (request, document, config, vector) is invalid. Never retryable. */
export class ValidationError extends CortexisError {
  /** Every invalid field. */
  readonly issues: readonly FieldIssue[];

  constructor(message: string, issues: readonly FieldIssue[] = [], options?: CortexisErrorOptions) {
    super('validation_error', message, false, options);
    this.name = 'ValidationError';
    this.issues = issues;
  }

  static override isInstance(error: unknown): error is ValidationError {
    return hasCode(error, 'validation_error');
  }
}

/** A session, message or document does not exist — or belongs to another user. */
export class NotFoundError extends CortexisError {
  /** What kind of thing was looked up. */
  readonly resource: 'session' | 'message' | 'document' | 'trajectory';
  /** The id that was looked up. */
  readonly id: string;

  constructor(resource: NotFoundError['resource'], id: string, options?: CortexisErrorOptions) {
    super('not_found', `${resource} '${id}' was not found`, false, options);
    this.name = 'NotFoundError';
    this.resource = resource;
    this.id = id;
  }

  static override isInstance(error: unknown): error is NotFoundError {
    return hasCode(error, 'not_found');
  }
}

/** The state does not allow the call (e.g. a message on an ended session, a duplicate id). */
export class ConflictError extends CortexisError {
  constructor(message: string, options?: CortexisErrorOptions) {
    super('conflict', message, false, options);
    this.name = 'ConflictError';
  }

  static override isInstance(error: unknown): error is ConflictError {
    return hasCode(error, 'conflict');
  }
}

/** Too many requests for a key (or from the provider). Retryable after `retryAfterMs`. */
export class RateLimitError extends CortexisError {
  /** How long to wait before trying again. */
  readonly retryAfterMs: number;
  /** Who limited: this engine's limiter, or the model provider (HTTP 429). */
  readonly scope: 'engine' | 'provider';

  constructor(
    message: string,
    retryAfterMs: number,
    scope: RateLimitError['scope'] = 'engine',
    options?: CortexisErrorOptions,
  ) {
    super('rate_limited', message, true, options);
    this.name = 'RateLimitError';
    this.retryAfterMs = retryAfterMs;
    this.scope = scope;
  }

  static override isInstance(error: unknown): error is RateLimitError {
    return hasCode(error, 'rate_limited');
  }
}

/** A model or embedding provider failed. `retryable` for network errors, 408/409/429/5xx. */
export class ProviderError extends CortexisError {
  /** Provider name. */
  readonly provider: string;
  /** HTTP status, when the failure was an HTTP response. */
  readonly status: number | undefined;
  /** Server-requested wait before a retry, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    init: {
      provider: string;
      status?: number | undefined;
      retryable?: boolean | undefined;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    },
  ) {
    super(
      'provider_error',
      message,
      init.retryable ?? isRetryableStatus(init.status),
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'ProviderError';
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
  }

  static override isInstance(error: unknown): error is ProviderError {
    return hasCode(error, 'provider_error');
  }
}

/** A call took longer than its timeout. Retryable. */
export class TimeoutError extends CortexisError {
  /** The timeout that elapsed, ms. */
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number, options?: CortexisErrorOptions) {
    super('timeout', message, true, options);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }

  static override isInstance(error: unknown): error is TimeoutError {
    return hasCode(error, 'timeout');
  }
}

/** The caller aborted the call through its `AbortSignal`. */
export class AbortError extends CortexisError {
  constructor(message = 'The operation was aborted', options?: CortexisErrorOptions) {
    super('aborted', message, false, options);
    this.name = 'AbortError';
  }

  static override isInstance(error: unknown): error is AbortError {
    return hasCode(error, 'aborted');
  }
}

/** The engine configuration is invalid. */
export class ConfigError extends CortexisError {
  /** Every invalid field. */
  readonly issues: readonly FieldIssue[];

  constructor(message: string, issues: readonly FieldIssue[] = [], options?: CortexisErrorOptions) {
    super('config_error', message, false, options);
    this.name = 'ConfigError';
    this.issues = issues;
  }

  static override isInstance(error: unknown): error is ConfigError {
    return hasCode(error, 'config_error');
  }
}

/**
 * cortexis itself or one of its stores failed (not the caller, not the model): a database error
 * during a turn, for example. The original error is the `cause`. Not retryable.
 */
export class InternalError extends CortexisError {
  constructor(message: string, options?: CortexisErrorOptions) {
    super('internal_error', message, false, options);
    this.name = 'InternalError';
  }

  static override isInstance(error: unknown): error is InternalError {
    return hasCode(error, 'internal_error');
  }
}

/** HTTP statuses worth retrying: 408, 409, 429 and 5xx. */
export function isRetryableStatus(status: number | undefined): boolean {
  return (
    status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500)
  );
}

/** Throws an `AbortError` when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new AbortError('The operation was aborted', { cause: signal.reason });
  }
}
