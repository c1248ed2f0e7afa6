/**
 * Server-sent events over a response body, parsed with `eventsource-parser`. Yields each
 * complete event (`event`, `data`, `id`); an event cut off by the end of the body is dropped,
 * as the SSE specification requires, so a caller detects a cut stream by its missing end
 * marker.
 * @module
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../../errors/index.js';
import { abortError } from './post-json.js';
import { readText, type BodyReadOptions } from './read-text.js';

/** One server-sent event. */
export type SseEvent = EventSourceMessage;

/** Options of {@link readSse}. */
export interface SseReadOptions extends BodyReadOptions {
  /** Most characters one event may buffer before the stream is rejected (default 16 MiB). */
  readonly maxBufferSize?: number | undefined;
}

/** Yields the server-sent events of `body` in order. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
): AsyncGenerator<SseEvent> {
  const { provider, signal } = options;
  const queue: SseEvent[] = [];
  let failure: ProviderError | undefined;
  const parser = createParser({
    maxBufferSize: options.maxBufferSize ?? 16 * 1024 * 1024,
    onEvent: (event) => queue.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        failure = new ProviderError(`${provider} sent an oversized server-sent event`, {
          provider,
          retryable: false,
          cause: error,
        });
      }
      // Unknown fields and bad `retry` values are ignored, as browsers do.
    },
  });
  for await (const text of readText(body, options)) {
    parser.feed(text);
    if (failure !== undefined) throw failure;
    while (queue.length > 0) {
      if (signal?.aborted) throw abortError(signal);
      yield queue.shift()!;
    }
  }
}
