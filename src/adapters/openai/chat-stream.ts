/**
 * Parsing of a streamed chat completion: the server-sent events of
 * `POST /chat/completions` with `stream: true`, turned into the port's text deltas and one
 * finish part (finish reason, usage, certainty); an `error` chunk, an abort or a cut stream
 * throws.
 */
import type * as z from 'zod/mini';
import { ProviderError } from '../../errors/index.js';
import type { FinishReason, LLMStreamPart, LLMUsage } from '../../ports/llm-provider.js';
import { abortError, parseJson, parseResponse, streamCutError } from '../http/post-json.js';
import { readSse } from '../http/sse.js';
import {
  certaintyFromLogprobs,
  chunkSchema,
  openAIFinishReason,
  toUsage,
  type streamErrorSchema,
} from './wire-schemas.js';

/** Reads the events of a streamed chat completion into text deltas and one finish part. */
export async function* readChatStream(
  body: ReadableStream<Uint8Array>,
  name: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<LLMStreamPart> {
  let finishReason: FinishReason | undefined;
  let usage: LLMUsage | undefined;
  let refused = false;
  let done = false;
  const tokenLogprobs: number[] = [];
  for await (const event of readSse(body, { provider: name, signal })) {
    if (event.data.trim() === '[DONE]') {
      done = true;
      break;
    }
    if (event.data.trim() === '') continue;
    const chunk = parseResponse(chunkSchema, parseJson(event.data, name), name, 'stream chunk');
    if (chunk.error) throw streamError(name, chunk.error);
    usage = toUsage(chunk.usage) ?? usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) continue;
    for (const token of choice.logprobs?.content ?? []) tokenLogprobs.push(token.logprob);
    const text = choice.delta?.content || choice.delta?.refusal || '';
    if (choice.delta?.refusal) refused = true;
    if (text !== '') {
      if (signal?.aborted) throw abortError(signal);
      yield { type: 'text-delta', text };
    }
    if (choice.finish_reason) finishReason = openAIFinishReason(choice.finish_reason);
  }
  if (signal?.aborted) throw abortError(signal);
  // Some compatible servers omit `[DONE]`; a finish reason also marks a complete answer.
  if (!done && finishReason === undefined) throw streamCutError(name);
  const certainty = certaintyFromLogprobs(tokenLogprobs);
  yield {
    type: 'finish',
    finishReason: refused ? 'content-filter' : (finishReason ?? 'other'),
    ...(usage === undefined ? {} : { usage }),
    ...(certainty === undefined ? {} : { certainty }),
  };
}

/** A `ProviderError` for an `error` chunk, retryable when its code or type says so. */
function streamError(provider: string, error: NonNullable<z.output<typeof streamErrorSchema>>) {
  const kind = String(error.code ?? error.type ?? '');
  const retryable = /server_error|overloaded|rate_limit|timeout|unavailable/i.test(kind);
  const detail = `${error.message ?? 'stream error'}${kind ? ` (${kind})` : ''}`;
  return new ProviderError(`${provider} stream error: ${detail}`, { provider, retryable });
}
