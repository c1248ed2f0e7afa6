import { throwIfAborted } from '../errors/index.js';
import type {
  FinishReason,
  LLMMetadata,
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
  LLMUsage,
} from '../ports/llm-provider.js';
import { sleep } from '../util/sleep.js';

/** A scripted answer given in full (and streamed in chunks). */
export interface MockLLMText {
  /** The answer text. */
  readonly text: string;
  /** The certainty reported with it. */
  readonly certainty?: number | undefined;
  /** The usage reported with it. */
  readonly usage?: LLMUsage | undefined;
  /** Why generation stopped (default `stop`). */
  readonly finishReason?: FinishReason | undefined;
  /** Exact stream chunks, which should join to `text`; default: `text` cut per the `chunking` setting. */
  readonly chunks?: readonly string[] | undefined;
  /** Wait before answering, in ms (abortable); overrides the `delayMs` setting. */
  readonly delayMs?: number | undefined;
}

/** A stream that breaks mid-way: yields `chunks`, then throws `errorAfter`. */
export interface MockLLMBrokenStream {
  /** Text deltas yielded before the failure. */
  readonly chunks: readonly string[];
  /** Thrown after the last chunk (by `generate`: thrown instead of answering). */
  readonly errorAfter: Error;
  /** Wait before the first chunk, in ms (abortable); overrides the `delayMs` setting. */
  readonly delayMs?: number | undefined;
}

/**
 * One scripted response: a text (streamed in chunks), a full answer, an `Error` thrown
 * before the first delta, or a stream that breaks mid-way.
 */
export type MockLLMResponse = string | MockLLMText | Error | MockLLMBrokenStream;

/** Picks the response of a call from the request and the 0-based call index. */
export type MockLLMResponder = (
  request: LLMRequest,
  callIndex: number,
) => MockLLMResponse | Promise<MockLLMResponse>;

/** Settings of {@link createMockLLM}. */
export interface MockLLMSettings {
  /**
   * What the calls answer: one response for every call, a list used in call order (see
   * `whenExhausted`), or a function of the request and the call index. Default `'Mock answer.'`.
   */
  readonly responses?: MockLLMResponse | readonly MockLLMResponse[] | MockLLMResponder | undefined;
  /** When a list of responses runs out: repeat the last one (default) or throw an `Error`. */
  readonly whenExhausted?: 'repeat-last' | 'throw' | undefined;
  /** How a text is cut into stream deltas: per word (default), per character, or every n characters. */
  readonly chunking?: 'word' | 'character' | number | undefined;
  /** Wait before each answer, in ms (default 0); aborting the request ends the wait. */
  readonly delayMs?: number | undefined;
  /** Wait between stream chunks, in ms (default 0); abortable. */
  readonly chunkDelayMs?: number | undefined;
  /** Keep the `signal` in recorded requests (default false: recorded requests omit it). */
  readonly recordSignal?: boolean | undefined;
  /** Adapter name (default `mock`). */
  readonly name?: string | undefined;
  /** Metadata overrides; default `{ provider: 'mock', model: 'mock-model', contextWindow: 8192 }`. */
  readonly metadata?: Partial<LLMMetadata> | undefined;
}

/** One recorded call. */
export interface MockLLMCall {
  /** Which method was called. */
  readonly method: 'generate' | 'stream';
  /** 0-based position among all calls (both methods). */
  readonly callIndex: number;
  /** A copy of the request as it was when called (without `signal` unless `recordSignal`). */
  readonly request: LLMRequest;
}

/** A scripted `LLMProvider` that records its calls. */
export interface MockLLM extends LLMProvider {
  /** Every call so far, in order. */
  readonly calls: readonly MockLLMCall[];
  /** Forgets the recorded calls and restarts the list of responses. */
  reset(): void;
}

const DEFAULT_RESPONSE = 'Mock answer.';

function isBrokenStream(response: MockLLMResponse): response is MockLLMBrokenStream {
  return typeof response === 'object' && !(response instanceof Error) && 'errorAfter' in response;
}

function split(text: string, chunking: MockLLMSettings['chunking']): string[] {
  if (text === '') return [];
  if (chunking === 'character') return Array.from(text);
  if (typeof chunking === 'number') {
    const size = Math.max(1, Math.floor(chunking));
    const chunks: string[] = [];
    for (let start = 0; start < text.length; start += size)
      chunks.push(text.slice(start, start + size));
    return chunks;
  }
  // Per word, each chunk carrying the whitespace before it; trailing whitespace joins the last.
  const chunks = text.match(/(?<!\s)\s*\S+/g) ?? [text];
  const joined = chunks.join('');
  if (joined.length < text.length) {
    chunks[chunks.length - 1] = (chunks[chunks.length - 1] ?? '') + text.slice(joined.length);
  }
  return chunks;
}

function copyRequest(request: LLMRequest, keepSignal: boolean): LLMRequest {
  const { signal, ...rest } = request;
  const copy = structuredClone(rest) as LLMRequest;
  return keepSignal && signal ? { ...copy, signal } : copy;
}

/**
 * An `LLMProvider` whose answers are scripted, for tests. It records every call in
 * `calls` and replays texts, failures (thrown before the first delta, or mid-stream) and
 * delays. An aborted signal rejects with an `AbortError`, also during a delay or between
 * chunks. A list of responses is used in call order (generate and stream calls share one
 * counter); once it runs out the last response repeats, or with `whenExhausted: 'throw'`
 * every further call throws.
 *
 * @example
 * const llm = createMockLLM({ responses: ['First answer.', new ProviderError('down', { provider: 'mock', status: 503 })] });
 */
export function createMockLLM(settings: MockLLMSettings = {}): MockLLM {
  const calls: MockLLMCall[] = [];
  const script = settings.responses ?? DEFAULT_RESPONSE;
  let nextIndex = 0;

  async function respond(request: LLMRequest, callIndex: number): Promise<MockLLMResponse> {
    if (typeof script === 'function') return script(request, callIndex);
    if (!Array.isArray(script)) return script as MockLLMResponse;
    const list = script as readonly MockLLMResponse[];
    if (callIndex < list.length) return list[callIndex]!;
    if (settings.whenExhausted === 'throw' || list.length === 0) {
      throw new Error(
        `mock LLM: no scripted response for call ${callIndex} (${list.length} scripted)`,
      );
    }
    return list[list.length - 1]!;
  }

  function record(method: MockLLMCall['method'], request: LLMRequest): number {
    const callIndex = nextIndex++;
    calls.push({
      method,
      callIndex,
      request: copyRequest(request, settings.recordSignal ?? false),
    });
    return callIndex;
  }

  /** Resolves the call's response, waits its delay, and throws a scripted error. */
  async function begin(
    request: LLMRequest,
    callIndex: number,
  ): Promise<Exclude<MockLLMResponse, Error>> {
    throwIfAborted(request.signal);
    const response = await respond(request, callIndex);
    const delay =
      typeof response === 'object' && !(response instanceof Error) && response.delayMs !== undefined
        ? response.delayMs
        : (settings.delayMs ?? 0);
    await sleep(delay, request.signal);
    if (response instanceof Error) throw response;
    return response;
  }

  return {
    name: settings.name ?? 'mock',
    specificationVersion: 'v1',
    metadata: {
      provider: 'mock',
      model: 'mock-model',
      contextWindow: 8192,
      ...settings.metadata,
    },
    calls,

    reset() {
      calls.length = 0;
      nextIndex = 0;
    },

    async generate(request: LLMRequest): Promise<LLMResult> {
      const callIndex = record('generate', request);
      const response = await begin(request, callIndex);
      if (isBrokenStream(response)) throw response.errorAfter;
      if (typeof response === 'string') return { text: response, finishReason: 'stop' };
      return {
        text: response.text,
        finishReason: response.finishReason ?? 'stop',
        ...(response.usage !== undefined && { usage: response.usage }),
        ...(response.certainty !== undefined && { certainty: response.certainty }),
      };
    },

    stream(request: LLMRequest): AsyncIterable<LLMStreamPart> {
      const callIndex = record('stream', request);
      const chunkDelay = settings.chunkDelayMs ?? 0;
      return (async function* (): AsyncGenerator<LLMStreamPart> {
        const response = await begin(request, callIndex);
        const text = typeof response === 'string' ? { text: response } : response;
        const chunks = isBrokenStream(text)
          ? text.chunks
          : (text.chunks ?? split(text.text, settings.chunking));
        for (const [index, chunk] of chunks.entries()) {
          if (index > 0) await sleep(chunkDelay, request.signal);
          throwIfAborted(request.signal);
          yield { type: 'text-delta', text: chunk };
        }
        throwIfAborted(request.signal);
        if (isBrokenStream(text)) throw text.errorAfter;
        yield {
          type: 'finish',
          finishReason: text.finishReason ?? 'stop',
          ...(text.usage !== undefined && { usage: text.usage }),
          ...(text.certainty !== undefined && { certainty: text.certainty }),
        };
      })();
    },
  };
}
