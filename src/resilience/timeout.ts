/**
 * Per-call timeouts through `AbortSignal`: the provider gets a signal that fires when the
 * caller's signal does or when the call runs out of time. A timed-out call rejects with a
 * `TimeoutError` (retryable), a cancelled one with an `AbortError` — even when the provider
 * ignores the signal, since the call is raced against it. Streams get a first-byte timeout
 * (time to the first part) and an idle timeout (time between parts).
 */
import { AbortError, TimeoutError } from '../errors/index.js';
import { abortErrorOf } from './retry.js';

/** The abort signal of one call, with a restartable timer. */
export interface CallDeadline {
  /** Fires when the caller aborts, the timer runs out, or the deadline is disposed. */
  readonly signal: AbortSignal;
  /** The timeout error, once the timer has fired. */
  readonly timedOut: TimeoutError | undefined;
  /** (Re)starts the timer: after `ms` the call times out with `message`. 0 disables it. */
  arm(ms: number, message: string): void;
  /** Stops the timer. */
  disarm(): void;
  /** Settles like `promise`, or rejects with the `TimeoutError` / `AbortError` as soon as the deadline fires. */
  race<T>(promise: Promise<T>): Promise<T>;
  /** Stops the timer, detaches from the caller's signal and aborts `signal` (cancels leftovers). */
  dispose(): void;
}

const noop = (): void => {};

/**
 * The reason a deadline's signal carries once its call has settled (the call's leftovers are
 * cancelled): one `AbortError` built on first use and shared, since building one (its stack)
 * on every successful call cost about 2.5 % of a turn. A timeout or the caller's abort still
 * aborts the signal with its own error.
 */
let settledReason: AbortError | undefined;
function settled(): AbortError {
  settledReason ??= new AbortError('The call has settled; its leftovers are cancelled');
  return settledReason;
}

/** A deadline bound to the caller's signal (see {@link CallDeadline}). */
export function createDeadline(callerSignal?: AbortSignal): CallDeadline {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut: TimeoutError | undefined;
  let failure: unknown;
  const pending = new Set<(error: unknown) => void>();

  const fail = (error: unknown): void => {
    if (failure !== undefined) return;
    failure = error;
    controller.abort(error);
    for (const reject of pending) reject(error);
    pending.clear();
  };
  const onCallerAbort = (): void => fail(abortErrorOf(undefined, callerSignal));
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  const disarm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  /** What a failure of the call means: our timeout, the caller's abort, or the error itself. */
  const explain = (error: unknown): unknown =>
    timedOut ?? (callerSignal?.aborted ? abortErrorOf(error, callerSignal) : error);

  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    arm(ms, message) {
      disarm();
      if (ms <= 0 || failure !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        timedOut = new TimeoutError(message, ms);
        fail(timedOut);
      }, ms);
    },
    disarm,
    race<T>(promise: Promise<T>): Promise<T> {
      if (failure !== undefined) {
        promise.catch(noop);
        return Promise.reject(explain(failure));
      }
      return new Promise<T>((resolve, reject) => {
        const onFail = (error: unknown): void => reject(explain(error));
        pending.add(onFail);
        promise.then(
          (value) => {
            pending.delete(onFail);
            resolve(value);
          },
          (error: unknown) => {
            pending.delete(onFail);
            reject(explain(error));
          },
        );
      });
    },
    dispose() {
      disarm();
      callerSignal?.removeEventListener('abort', onCallerAbort);
      pending.clear();
      if (!controller.signal.aborted) controller.abort(settled());
    },
  };
}

/** Options of {@link withTimeout}. */
export interface TimeoutOptions {
  /** Most time the call may take, ms; 0 disables the timeout. */
  readonly timeoutMs: number;
  /** The caller's signal; its abort rejects the call with `AbortError`. */
  readonly signal?: AbortSignal | undefined;
  /** What is called, for the error message (default `the call`). */
  readonly what?: string | undefined;
}

/**
 * Runs `call` with a signal combining the caller's and a timer. Rejects with `TimeoutError`
 * after `timeoutMs`, with `AbortError` when the caller aborts (without calling when it
 * already has), otherwise settles like `call`.
 *
 * @example
 * const result = await withTimeout((signal) => llm.generate({ ...request, signal }), { timeoutMs: 60_000, signal });
 */
export async function withTimeout<T>(
  call: (signal: AbortSignal) => Promise<T>,
  options: TimeoutOptions,
): Promise<T> {
  const deadline = createDeadline(options.signal);
  try {
    if (options.signal?.aborted) throw abortErrorOf(undefined, options.signal);
    deadline.arm(
      options.timeoutMs,
      `${options.what ?? 'the call'} timed out after ${options.timeoutMs} ms`,
    );
    return await deadline.race(Promise.resolve().then(() => call(deadline.signal)));
  } finally {
    deadline.dispose();
  }
}

/** Options of {@link withStreamTimeouts}. */
export interface StreamTimeoutOptions {
  /** Most time until the first part arrives, ms; 0 disables it. */
  readonly firstByteTimeoutMs: number;
  /** Most time between two parts (and before the end), ms; 0 disables it. */
  readonly idleTimeoutMs: number;
  /** The caller's signal; its abort rejects with `AbortError`. */
  readonly signal?: AbortSignal | undefined;
  /** What is streamed, for the error messages (default `the stream`). */
  readonly what?: string | undefined;
}

/**
 * Iterates the stream `open` returns with a first-byte and an idle timeout; the time the
 * consumer spends between parts does not count. A timeout throws `TimeoutError`, the
 * caller's abort `AbortError`; either aborts the signal given to `open` (which cancels the
 * HTTP request). On every exit that leaves the provider's iterator unfinished — the consumer
 * leaves early, aborts, or a timeout fires while a part is pending — its `return()` is called
 * exactly once (so a generator's `finally` runs and a pooled connection is released), without
 * waiting on it. It is not called when the iterator itself ended (done or threw).
 */
export async function* withStreamTimeouts<T>(
  open: (signal: AbortSignal) => AsyncIterable<T>,
  options: StreamTimeoutOptions,
): AsyncGenerator<T, void, undefined> {
  const what = options.what ?? 'the stream';
  const deadline = createDeadline(options.signal);
  let iterator: AsyncIterator<T> | undefined;
  // The provider's iterator ended by itself (done, or its `next()` threw): nothing to close.
  let ended = false;
  try {
    if (options.signal?.aborted) throw abortErrorOf(undefined, options.signal);
    iterator = open(deadline.signal)[Symbol.asyncIterator]();
    for (let first = true; ; first = false) {
      if (first) {
        deadline.arm(
          options.firstByteTimeoutMs,
          `${what} sent nothing within ${options.firstByteTimeoutMs} ms (first-byte timeout)`,
        );
      } else {
        deadline.arm(
          options.idleTimeoutMs,
          `${what} stalled for ${options.idleTimeoutMs} ms (idle timeout)`,
        );
      }
      const next = Promise.resolve(iterator.next());
      // Registered before the race's own handlers, so it is set before the race settles.
      next.then(
        (result) => {
          if (result.done) ended = true;
        },
        () => {
          ended = true;
        },
      );
      const result = await deadline.race(next);
      deadline.disarm();
      if (result.done) return;
      yield result.value;
    }
  } finally {
    deadline.dispose();
    const leftover = iterator;
    if (!ended && leftover?.return) {
      // Let the provider's stream clean up, without waiting on it (it may be stuck in a read).
      Promise.resolve()
        .then(() => leftover.return?.())
        .catch(noop);
    }
  }
}
