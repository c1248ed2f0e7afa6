import { AbortError, ProviderError, throwIfAborted } from '../errors/index.js';
import type { LLMProvider, LLMRequest, LLMResult, LLMStreamPart } from '../ports/llm-provider.js';
import { sleep } from '../util/sleep.js';
import { createMockLLM } from './mock-llm.js';

/** A failure given as an HTTP status: becomes a `ProviderError` (retryable per the status). */
export interface LLMFaultStatus {
  /** The HTTP status, e.g. 429 or 503. */
  readonly status: number;
  /** The wait the "server" asks for, reported as `retryAfterMs`. */
  readonly retryAfterMs?: number | undefined;
  /** The error message (default `faulty LLM: HTTP <status>`). */
  readonly message?: string | undefined;
}

/** What goes wrong in one call. Every wait is abortable: aborting the request ends it. */
export interface LLMFault {
  /** Wait before the first delta (or the result), in ms. */
  readonly delayMs?: number | undefined;
  /** Wait before each further streamed delta, in ms. */
  readonly chunkDelayMs?: number | undefined;
  /** Fail before answering: this error, or a `ProviderError` for an HTTP status. */
  readonly error?: Error | LLMFaultStatus | undefined;
  /**
   * Cut the stream after this many deltas: the stream then throws `cutError` (default a
   * retryable `ProviderError` "stream cut"), or just stops with `silentCut`. A `generate`
   * call with a cut throws `cutError`.
   */
  readonly cutAfterDeltas?: number | undefined;
  /** The error a cut stream throws. */
  readonly cutError?: Error | undefined;
  /** A cut stream ends without an error and without its `finish` part (a dropped connection). */
  readonly silentCut?: boolean | undefined;
  /** Never answer: wait until the request is aborted (then reject with an `AbortError`). */
  readonly hang?: boolean | undefined;
}

/** Picks the fault of a call from the request and the 0-based call index (`undefined`: none). */
export type LLMFaultScript = (request: LLMRequest, callIndex: number) => LLMFault | undefined;

/** Settings of {@link createFaultyLLM}. */
export interface FaultyLLMSettings {
  /** The provider that answers when no fault stops it (default `createMockLLM()`). */
  readonly llm?: LLMProvider | undefined;
  /**
   * The faults: one for every call, a list in call order (calls past its end run without a
   * fault: the provider "recovers"), or a function of the request and the call index.
   */
  readonly faults?: LLMFault | readonly LLMFault[] | LLMFaultScript | undefined;
  /** Adapter name (default `faulty(<wrapped name>)`). */
  readonly name?: string | undefined;
}

/** How a recorded call ended (`aborted` also when the caller stopped reading a stream). */
export type FaultyLLMOutcome = 'running' | 'complete' | 'failed' | 'cut' | 'aborted';

/** One recorded call of a faulty LLM. */
export interface FaultyLLMCall {
  /** Which method was called. */
  readonly method: 'generate' | 'stream';
  /** 0-based position among all calls (both methods). */
  readonly callIndex: number;
  /** The fault applied, if any. */
  readonly fault: LLMFault | undefined;
  /** How the call ended so far (`running` until it ends; a stream left unread stays `running`). */
  outcome: FaultyLLMOutcome;
  /** Deltas delivered to the caller. */
  deltas: number;
}

/** A provider that fails, stalls and cuts streams on a script, and records every call. */
export interface FaultyLLM extends LLMProvider {
  /** Every call so far, in order. */
  readonly calls: readonly FaultyLLMCall[];
  /** Calls that have started and not ended (for "nothing left running after an abort" checks). */
  readonly running: number;
  /** Forgets the recorded calls and restarts the script at call 0. */
  reset(): void;
}

function toError(error: Error | LLMFaultStatus, provider: string): Error {
  if (error instanceof Error) return error;
  return new ProviderError(error.message ?? `faulty LLM: HTTP ${error.status}`, {
    provider,
    status: error.status,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
  });
}

function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const onAbort = () =>
      reject(new AbortError('The operation was aborted', { cause: signal?.reason }));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * An `LLMProvider` for abort and fault tests: wraps a provider (the mock by default, or a real
 * one such as the extractive LLM) and, call by call, delays it, fails it (an error or an HTTP
 * status), cuts its stream after some deltas (with an error or silently) or makes it hang until
 * aborted. Each call is recorded with its fault, how it ended and how many deltas it delivered.
 *
 * @example
 * ```ts
 * const llm = createFaultyLLM({
 *   llm: createMockLLM({ responses: 'Refunds take 14 days.' }),
 *   faults: [{ error: { status: 503 } }, { cutAfterDeltas: 2 }, { hang: true }],
 * });
 * ```
 */
export function createFaultyLLM(settings: FaultyLLMSettings = {}): FaultyLLM {
  const inner = settings.llm ?? createMockLLM();
  const calls: FaultyLLMCall[] = [];
  let running = 0;
  let nextIndex = 0;
  const name = settings.name ?? `faulty(${inner.name})`;

  function faultOf(request: LLMRequest, callIndex: number): LLMFault | undefined {
    const script = settings.faults;
    if (script === undefined) return undefined;
    if (typeof script === 'function') return (script as LLMFaultScript)(request, callIndex);
    if (Array.isArray(script)) return (script as readonly LLMFault[])[callIndex];
    return script as LLMFault;
  }

  function start(method: FaultyLLMCall['method'], request: LLMRequest): FaultyLLMCall {
    const callIndex = nextIndex++;
    const call: FaultyLLMCall = {
      method,
      callIndex,
      fault: faultOf(request, callIndex),
      outcome: 'running',
      deltas: 0,
    };
    calls.push(call);
    running += 1;
    return call;
  }

  function end(call: FaultyLLMCall, outcome: FaultyLLMOutcome, error?: unknown): void {
    if (call.outcome !== 'running') return;
    call.outcome = AbortError.isInstance(error) ? 'aborted' : outcome;
    running -= 1;
  }

  /** The fault's wait, hang and error, before anything is answered. */
  async function before(call: FaultyLLMCall, request: LLMRequest): Promise<void> {
    const fault = call.fault;
    throwIfAborted(request.signal);
    await sleep(fault?.delayMs ?? 0, request.signal);
    if (fault?.hang) await waitForAbort(request.signal);
    if (fault?.error) throw toError(fault.error, name);
  }

  const cutError = (fault: LLMFault) =>
    fault.cutError ??
    new ProviderError('faulty LLM: stream cut', { provider: name, retryable: true });

  return {
    name,
    specificationVersion: 'v1',
    metadata: inner.metadata,
    calls,
    get running() {
      return running;
    },

    reset() {
      calls.length = 0;
      nextIndex = 0;
    },

    async generate(request: LLMRequest): Promise<LLMResult> {
      const call = start('generate', request);
      try {
        await before(call, request);
        if (call.fault?.cutAfterDeltas !== undefined) throw cutError(call.fault);
        const result = await inner.generate(request);
        end(call, 'complete');
        return result;
      } catch (error) {
        end(call, call.fault?.cutAfterDeltas !== undefined ? 'cut' : 'failed', error);
        throw error;
      }
    },

    stream(request: LLMRequest): AsyncIterable<LLMStreamPart> {
      const call = start('stream', request);
      const fault = call.fault;
      return (async function* (): AsyncGenerator<LLMStreamPart> {
        let cut = false;
        try {
          await before(call, request);
          for await (const part of inner.stream(request)) {
            if (part.type === 'text-delta') {
              if (fault?.cutAfterDeltas !== undefined && call.deltas >= fault.cutAfterDeltas) {
                cut = true;
                if (fault.silentCut) break;
                throw cutError(fault);
              }
              if (call.deltas > 0) await sleep(fault?.chunkDelayMs ?? 0, request.signal);
              throwIfAborted(request.signal);
              call.deltas += 1;
            }
            yield part;
          }
          end(call, cut ? 'cut' : 'complete');
        } catch (error) {
          end(call, cut ? 'cut' : 'failed', error);
          throw error;
        } finally {
          // The caller stopped reading (break, return): the call ends here.
          end(call, 'aborted');
        }
      })();
    },
  };
}
