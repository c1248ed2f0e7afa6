/**
 * Resilient providers: wrap any `LLMProvider` or `EmbeddingProvider` with a timeout per
 * call, retries with backoff for retryable errors, and a circuit breaker. The wrapper is an
 * ordinary provider, so the rest of the engine does not know it is there.
 *
 * Order per call: breaker( deadline( retry( timeout( provider ) ) ) ) — the breaker counts
 * calls, not attempts: a call that still fails after its retries is one failure, so "5
 * failures in 120 s" means five failed answers. A call refused by an open breaker makes no
 * provider call, and a call whose breaker another call opened meanwhile stops retrying. The
 * deadline (`deadlineMs`) bounds a whole call, retries and waits included.
 *
 * @example
 * ```ts
 * const llm = createResilientLLM(createOpenAI({ model: 'gpt-4o-mini' }), { retries: 2 }, {
 *   onRetry: ({ attempt, delayMs, error }) => console.warn(`retry ${attempt} in ${delayMs} ms`, error),
 *   onBreaker: ({ key, state }) => console.warn(`breaker ${key} is ${state}`),
 * });
 * const reply = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
 * ```
 * @module
 */
import { CortexisError, ProviderError } from '../errors/index.js';
import { CircuitOpenError } from './errors.js';
import type { CallOptions } from '../ports/common.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { LLMProvider, LLMRequest, LLMResult, LLMStreamPart } from '../ports/llm-provider.js';
import { sleep as abortableSleep } from '../util/sleep.js';
import {
  createCircuitBreaker,
  type BreakerPermit,
  type BreakerSnapshot,
  type BreakerStateChange,
  type CircuitBreaker,
} from './breaker.js';
import {
  abortErrorOf,
  finalRetryError,
  fitsDeadline,
  isAbortError,
  isRetryableError,
  nextRetryDelay,
  retryAfterOf,
  withRetry,
  type RetryPolicy,
} from './retry.js';
import {
  resolveResilienceSettings,
  type ResilienceSettings,
  type ResilienceSettingsInput,
} from './settings.js';
import { withStreamTimeouts, withTimeout } from './timeout.js';

/** Which provider call an event is about. */
export type ResilientOperation = 'generate' | 'stream' | 'embed';

/** A failed attempt is about to be retried. */
export interface ResilienceRetryEvent {
  /** Provider name. */
  readonly provider: string;
  /** The call retried. */
  readonly operation: ResilientOperation;
  /** The breaker key of the call. */
  readonly key: string;
  /** Which retry this is: 1 for the first retry (the second attempt). */
  readonly attempt: number;
  /** Wait before it, ms (the provider's `Retry-After` when it sent one, capped at `maxDelayMs`). */
  readonly delayMs: number;
  /** The error of the attempt that failed. */
  readonly error: unknown;
}

/** A breaker key changed state. */
export interface ResilienceBreakerEvent extends BreakerStateChange {
  /** Provider name. */
  readonly provider: string;
}

/** The provider answered HTTP 429 (rate limited), whether or not the call is retried. */
export interface ProviderRateLimitEvent {
  /** Provider name. */
  readonly provider: string;
  /** The call limited. */
  readonly operation: ResilientOperation;
  /** The breaker key of the call. */
  readonly key: string;
  /** The wait the provider asked for (`Retry-After`), ms; 0 when it sent none. */
  readonly retryAfterMs: number;
  /** The error the provider call failed with. */
  readonly error: unknown;
}

/** Callbacks of the resilience layer. A callback that throws is ignored. */
export interface ResilienceHooks {
  /** Before each retry's wait (engine event `retry`). */
  readonly onRetry?: ((event: ResilienceRetryEvent) => void) | undefined;
  /** On each breaker state change (engine event `breaker`). */
  readonly onBreaker?: ((event: ResilienceBreakerEvent) => void) | undefined;
  /** On each provider 429 (engine event `rateLimit`, scope `provider`). */
  readonly onRateLimit?: ((event: ProviderRateLimitEvent) => void) | undefined;
}

/** Clock, sleep and randomness, injectable for deterministic tests. */
export interface ResilienceRuntime {
  /** Waits between attempts (default: an abortable `setTimeout`). */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Jitter source in [0, 1) (default `Math.random`). */
  readonly random?: (() => number) | undefined;
  /** Clock of the breaker, epoch ms (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

/** Per-call context: which conversation the call belongs to, and hooks for this call only. */
export interface ResilienceCallContext {
  /** The conversation (session id); keys the breaker when `breakerScope` is `conversation`. */
  readonly conversationId?: string | null | undefined;
  /** Hooks called for this call, after the wrapper's own hooks. */
  readonly hooks?: ResilienceHooks | undefined;
}

/** Parts shared by the resilient LLM and embedder. */
interface ResilientParts {
  /** The settings in force, defaults applied. */
  readonly settings: ResilienceSettings;
  /** The breaker, or undefined when `breaker.enabled` is false. */
  readonly breaker: CircuitBreaker | undefined;
  /** The breaker state of a conversation (or of the provider), to skip a doomed call early. */
  breakerState(conversationId?: string | null): BreakerSnapshot;
}

/** An `LLMProvider` with timeouts, retries and a circuit breaker around the wrapped one. */
export interface ResilientLLM extends LLMProvider, ResilientParts {
  /** The wrapped provider. */
  readonly inner: LLMProvider;
  /** The same provider bound to a conversation (breaker key) and per-call hooks. */
  withContext(context: ResilienceCallContext): LLMProvider;
}

/** An `EmbeddingProvider` with timeouts, retries and a circuit breaker around the wrapped one. */
export interface ResilientEmbedder extends EmbeddingProvider, ResilientParts {
  /** The wrapped embedder. */
  readonly inner: EmbeddingProvider;
  /** The same embedder with hooks for its calls. */
  withContext(context: ResilienceCallContext): EmbeddingProvider;
}

function notify<E>(
  hooks: readonly (ResilienceHooks | undefined)[],
  pick: (hooks: ResilienceHooks) => ((event: E) => void) | undefined,
  event: E,
): void {
  for (const set of hooks) {
    const hook = set ? pick(set) : undefined;
    if (!hook) continue;
    try {
      hook(event);
    } catch {
      // A hook never breaks a call.
    }
  }
}

function isProviderRateLimit(error: unknown): boolean {
  if (!CortexisError.isInstance(error)) return false;
  return error.code === 'rate_limited' || (error as { status?: unknown }).status === 429;
}

/** The machinery both wrappers share. */
function createCore(
  name: string,
  input: ResilienceSettingsInput | ResilienceSettings | undefined,
  hooks: ResilienceHooks,
  runtime: ResilienceRuntime,
) {
  const settings = resolveResilienceSettings(input);
  const breaker = settings.breaker.enabled
    ? createCircuitBreaker({
        provider: name,
        failureThreshold: settings.breaker.failureThreshold,
        windowMs: settings.breaker.windowMs,
        cooldownMs: settings.breaker.cooldownMs,
        now: runtime.now,
        onStateChange: (change) =>
          notify([hooks], (set) => set.onBreaker, { ...change, provider: name }),
      })
    : undefined;
  const policy: RetryPolicy = {
    retries: settings.retries,
    minDelayMs: settings.minDelayMs,
    maxDelayMs: settings.maxDelayMs,
    isRetryable: isRetryableError,
    random: runtime.random,
  };
  const sleep = runtime.sleep ?? abortableSleep;

  const keyOf = (conversationId: string | null | undefined): string =>
    settings.breakerScope === 'conversation' && conversationId ? `${name}:${conversationId}` : name;

  /** Hooks of one call: the wrapper's, then the call's. */
  const callHooks = (context: ResilienceCallContext) => [hooks, context.hooks] as const;

  const onAttemptError =
    (operation: ResilientOperation, key: string, context: ResilienceCallContext) =>
    (error: unknown): void => {
      if (!isProviderRateLimit(error)) return;
      notify(callHooks(context), (set) => set.onRateLimit, {
        provider: name,
        operation,
        key,
        retryAfterMs: retryAfterOf(error) ?? 0,
        error,
      });
    };

  const onRetry =
    (operation: ResilientOperation, key: string, context: ResilienceCallContext) =>
    (info: { attempt: number; delayMs: number; error: unknown }): void =>
      notify(callHooks(context), (set) => set.onRetry, { provider: name, operation, key, ...info });

  const now = runtime.now ?? Date.now;

  /** Time left of a call's deadline started at `started`, ms (Infinity when disabled). */
  const remainingFrom = (started: number) => (): number =>
    settings.deadlineMs === 0 ? Infinity : settings.deadlineMs - (now() - started);

  /** A timeout cut to the time left: `ms` (0: none) or less when the deadline is closer. */
  const within = (ms: number, remaining: number): number =>
    remaining === Infinity ? ms : Math.max(1, ms === 0 ? remaining : Math.min(ms, remaining));

  /** Stops a retry when another call opened the breaker meanwhile (no provider call). */
  const stillClosed = (key: string): void => {
    const snapshot = breaker?.snapshot(key);
    if (snapshot?.state === 'open') {
      throw new CircuitOpenError({ provider: name, key, retryAfterMs: snapshot.retryAfterMs });
    }
  };

  /** generate / embed: breaker( deadline( retry( timeout( call ) ) ) ). */
  function call<T>(
    operation: ResilientOperation,
    context: ResilienceCallContext,
    signal: AbortSignal | undefined,
    invoke: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const key = keyOf(context.conversationId);
    const remainingMs = remainingFrom(now());
    const attempt = (number: number) => {
      if (number > 1) stillClosed(key);
      return withTimeout(invoke, {
        timeoutMs: within(settings.timeoutMs, remainingMs()),
        signal,
        what: `${name} ${operation}`,
      });
    };
    const attempts = () =>
      withRetry(attempt, {
        ...policy,
        signal,
        sleep,
        remainingMs,
        onRetry: onRetry(operation, key, context),
        onError: onAttemptError(operation, key, context),
      });
    return breaker ? breaker.run(key, attempts) : attempts();
  }

  const breakerState = (conversationId?: string | null): BreakerSnapshot =>
    breaker?.snapshot(keyOf(conversationId)) ?? { state: 'closed', failures: 0, retryAfterMs: 0 };

  return {
    settings,
    breaker,
    policy,
    sleep,
    keyOf,
    call,
    onRetry,
    onAttemptError,
    breakerState,
    now,
    remainingFrom,
    within,
    stillClosed,
  };
}

/** The error for a provider whose output breaks the port contract (names the provider, not the value). */
function malformedOutput(provider: string, what: string): ProviderError {
  return new ProviderError(`${provider} returned malformed output: ${what} is not a string`, {
    provider,
    retryable: false,
  });
}

/**
 * A `generate` result as the port promises it: an object whose `text` is a string. Otherwise
 * a non-retryable `ProviderError`, so nothing is stored as "undefined" or "[object Object]".
 */
function checkedResult(provider: string, result: unknown): LLMResult {
  if (typeof result !== 'object' || result === null) throw malformedOutput(provider, 'the result');
  if (typeof (result as { text?: unknown }).text !== 'string') {
    throw malformedOutput(provider, 'the answer text');
  }
  return result as LLMResult;
}

/** A stream part as the port promises it (a `text-delta` carries a string), else a `ProviderError`. */
function checkedPart(provider: string, part: unknown): LLMStreamPart {
  if (typeof part !== 'object' || part === null) throw malformedOutput(provider, 'a stream part');
  const { type, text } = part as { type?: unknown; text?: unknown };
  if (type === 'text-delta' && typeof text !== 'string') {
    throw malformedOutput(provider, 'a text delta');
  }
  return part as LLMStreamPart;
}

/**
 * Wraps an `LLMProvider`: `generate` gets a timeout, retries and the breaker; `stream` gets
 * first-byte and idle timeouts and the breaker, and is retried only before its first
 * text delta (after one, a failure propagates as is). While the breaker is open both throw
 * `CircuitOpenError` without calling the provider. Settings are validated (`ConfigError`).
 * What the provider returns is checked too: a non-string answer text or text delta is a
 * non-retryable `ProviderError`.
 */
export function createResilientLLM(
  llm: LLMProvider,
  settings?: ResilienceSettingsInput | ResilienceSettings,
  hooks: ResilienceHooks = {},
  runtime: ResilienceRuntime = {},
): ResilientLLM {
  const core = createCore(llm.name, settings, hooks, runtime);
  const { breaker, policy, sleep } = core;
  const timeouts = core.settings;

  function generate(request: LLMRequest, context: ResilienceCallContext): Promise<LLMResult> {
    return core.call('generate', context, request.signal, async (signal) =>
      checkedResult(llm.name, await llm.generate({ ...request, signal })),
    );
  }

  async function* stream(
    request: LLMRequest,
    context: ResilienceCallContext,
  ): AsyncGenerator<LLMStreamPart, void, undefined> {
    const { signal } = request;
    const key = core.keyOf(context.conversationId);
    const onRetry = core.onRetry('stream', key, context);
    const onError = core.onAttemptError('stream', key, context);
    const remainingMs = core.remainingFrom(core.now());
    const errors: unknown[] = [];
    if (signal?.aborted) throw abortErrorOf(undefined, signal);
    // One permit per call (not per attempt): an open breaker refuses it with no provider call.
    const permit: BreakerPermit | undefined = breaker?.acquire(key);
    let delivered = false;
    let settled = false;
    try {
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw abortErrorOf(undefined, signal);
        if (attempt > 1) core.stillClosed(key);
        try {
          const parts = withStreamTimeouts((inner) => llm.stream({ ...request, signal: inner }), {
            // Until its first text a stream is bound by the call's deadline.
            firstByteTimeoutMs: core.within(timeouts.firstByteTimeoutMs, remainingMs()),
            idleTimeoutMs: timeouts.idleTimeoutMs,
            signal,
            what: `${llm.name} stream`,
          });
          for await (const raw of parts) {
            const part = checkedPart(llm.name, raw);
            if (part.type === 'text-delta' && part.text.length > 0) delivered = true;
            yield part;
          }
          settled = true;
          permit?.success();
          return;
        } catch (error) {
          errors.push(error);
          onError(error);
          // Text reached the consumer: a retry would repeat or contradict it.
          if (delivered) throw error;
          if (signal?.aborted || isAbortError(error)) throw abortErrorOf(error, signal);
          const delayMs = nextRetryDelay(policy, error, attempt);
          if (delayMs === undefined) {
            throw finalRetryError(
              errors,
              isRetryableError(error) ? 'max-retries-exceeded' : 'error-not-retryable',
            );
          }
          if (!fitsDeadline(delayMs, remainingMs)) {
            throw finalRetryError(errors, 'deadline-exceeded');
          }
          onRetry({ attempt, delayMs, error });
          try {
            await sleep(delayMs, signal);
          } catch (sleepError) {
            throw signal?.aborted || isAbortError(sleepError)
              ? abortErrorOf(sleepError, signal)
              : sleepError;
          }
        }
      }
    } catch (error) {
      settled = true;
      permit?.failure(error);
      throw error;
    } finally {
      // The consumer stopped reading: a stream that produced text worked.
      if (!settled) {
        if (delivered) permit?.success();
        else permit?.release();
      }
    }
  }

  function bound(context: ResilienceCallContext): LLMProvider {
    return {
      name: llm.name,
      specificationVersion: 'v1',
      metadata: llm.metadata,
      generate: (request) => generate(request, context),
      stream: (request) => stream(request, context),
    };
  }

  const unbound: ResilienceCallContext = {};
  return {
    name: llm.name,
    specificationVersion: 'v1',
    metadata: llm.metadata,
    inner: llm,
    settings: core.settings,
    breaker,
    breakerState: core.breakerState,
    generate: (request) => generate(request, unbound),
    stream: (request) => stream(request, unbound),
    withContext: bound,
  };
}

/**
 * Wraps an `EmbeddingProvider`: `embed` gets the timeout (`timeoutMs`), retries and the
 * breaker (always keyed per embedder). While the breaker is open `embed` throws
 * `CircuitOpenError` without calling the embedder.
 */
export function createResilientEmbedder(
  embedder: EmbeddingProvider,
  settings?: ResilienceSettingsInput | ResilienceSettings,
  hooks: ResilienceHooks = {},
  runtime: ResilienceRuntime = {},
): ResilientEmbedder {
  const input =
    settings === undefined ? undefined : { ...settings, breakerScope: 'provider' as const };
  const core = createCore(embedder.name, input, hooks, runtime);

  const embed = (
    texts: readonly string[],
    options: CallOptions | undefined,
    context: ResilienceCallContext,
  ): Promise<Float32Array[]> =>
    core.call('embed', context, options?.signal, (signal) =>
      embedder.embed(texts, { ...options, signal }),
    );

  const describe = {
    name: embedder.name,
    specificationVersion: 'v1' as const,
    id: embedder.id,
    dimensions: embedder.dimensions,
    ...(embedder.similarityRange !== undefined && { similarityRange: embedder.similarityRange }),
    ...(embedder.maxBatchSize !== undefined && { maxBatchSize: embedder.maxBatchSize }),
  };
  const unbound: ResilienceCallContext = {};
  return {
    ...describe,
    inner: embedder,
    settings: core.settings,
    breaker: core.breaker,
    breakerState: core.breakerState,
    embed: (texts, options) => embed(texts, options, unbound),
    withContext: (context) => ({
      ...describe,
      embed: (texts, options) => embed(texts, options, context),
    }),
  };
}
