/**
 * Decodes a response body (`ReadableStream<Uint8Array>`) into text pieces, mapping read
 * failures to typed errors: `AbortError` when the signal fired, a retryable `ProviderError`
 * when the connection broke. Stopping early (a consumer `break`) cancels the body.
 * @module
 */
import { readError } from './post-json.js';

/** Where a body comes from, for errors and cancellation. */
export interface BodyReadOptions {
  /** Provider name, for errors. */
  readonly provider: string;
  /** Cancels the read; the iterator then rejects with `AbortError`. */
  readonly signal?: AbortSignal | undefined;
}

/** Yields the body's text as it arrives (UTF-8, multi-byte characters kept whole). */
export async function* readText(
  body: ReadableStream<Uint8Array>,
  options: BodyReadOptions,
): AsyncGenerator<string> {
  const { provider, signal } = options;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw readError(error, provider, signal, [], 'stream broke');
      }
      if (signal?.aborted) throw readError(undefined, provider, signal, [], 'aborted');
      if (chunk.done) {
        finished = true;
        const rest = decoder.decode();
        if (rest !== '') yield rest;
        return;
      }
      const text = decoder.decode(chunk.value, { stream: true });
      if (text !== '') yield text;
    }
  } finally {
    if (!finished) {
      // Release the connection when the consumer stops early or an error ends the read.
      reader.cancel().catch(() => {});
    }
    try {
      reader.releaseLock();
    } catch {
      // Already released or errored: nothing to do.
    }
  }
}
