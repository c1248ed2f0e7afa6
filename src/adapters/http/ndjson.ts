/**
 * Newline-delimited JSON over a response body: one JSON value per line, blank lines skipped.
 * Every line is parsed with a guard: a malformed line rejects with a non-retryable
 * `ProviderError` naming the provider, after the values before it were yielded. A last line
 * without its newline is still parsed when the body ends; if it is incomplete JSON the body
 * was cut, a retryable `ProviderError`.
 * @module
 */
import { abortError, parseJson, streamCutError } from './post-json.js';
import { readText, type BodyReadOptions } from './read-text.js';

/** Yields the JSON value of each line of `body`, in order. */
export async function* readNdjson(
  body: ReadableStream<Uint8Array>,
  options: BodyReadOptions,
): AsyncGenerator<unknown> {
  const { provider, signal } = options;
  let buffer = '';
  for await (const text of readText(body, options)) {
    buffer += text;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') {
        if (signal?.aborted) throw abortError(signal);
        yield parseJson(line, provider);
      }
      newline = buffer.indexOf('\n');
    }
  }
  const last = buffer.trim();
  if (last === '') return;
  let value: unknown;
  try {
    value = parseJson(last, provider);
  } catch {
    // A body that ends inside a line was cut (by the server or a proxy), not malformed.
    throw streamCutError(provider);
  }
  yield value;
}
