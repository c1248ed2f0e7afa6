/**
 * The streaming writer of the OpenAI-compatible routes: a turn's stream parts as Server-Sent
 * Events of `chat.completion.chunk` objects, ending with `data: [DONE]` (or an OpenAI error
 * frame when the turn fails mid-stream).
 */
import { InternalError } from '../errors/index.js';
import type { ChatStream } from '../stream.js';
import type { ChatStreamPart } from '../types.js';
import { openAIError } from './openai-error.js';
import type { CompletionRequest } from './openai-request.js';
import { extensionOf, usageOf, type TokenCounter } from './openai-response.js';

const encoder = new TextEncoder();

/** One SSE frame of a JSON value (or the literal `[DONE]`). */
const frame = (data: unknown): Uint8Array =>
  encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

/** What every chunk of one streamed completion shares. */
interface ChunkHead {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/** A `chat.completion.chunk` with one choice. */
function chunk(
  head: ChunkHead,
  delta: { role?: 'assistant'; content?: string },
  finishReason: 'stop' | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  };
}

/** Settings of one streamed completion. */
interface StreamPlan {
  readonly head: ChunkHead;
  readonly parsed: CompletionRequest;
  /**
   * Hold the text until the turn ends: the judge may remove sentences or block the answer
   * after they streamed, and an OpenAI stream cannot take text back.
   */
  readonly holdText: boolean;
  readonly tokenizer: TokenCounter;
}

/**
 * The turn's parts as OpenAI `chat.completion.chunk` frames: the role, the text in pieces, a
 * chunk with `finish_reason` and the `cortexis` field, a usage chunk when asked for, then
 * `[DONE]`. A failure mid-stream becomes an OpenAI error frame with a client-safe message.
 */
export function completionFrames(
  stream: ChatStream,
  iterator: AsyncIterator<ChatStreamPart>,
  first: IteratorResult<ChatStreamPart>,
  plan: StreamPlan,
): ReadableStream<Uint8Array> {
  const { head, parsed } = plan;
  const usageField = parsed.includeUsage ? { usage: null } : {};
  async function* frames(): AsyncGenerator<Uint8Array> {
    yield frame(chunk(head, { role: 'assistant', content: '' }, null, usageField));
    let next = first;
    for (; !next.done; next = await iterator.next()) {
      const part = next.value;
      if (part.type === 'text-delta' && !plan.holdText && part.text.length > 0) {
        yield frame(chunk(head, { content: part.text }, null, usageField));
      } else if (part.type === 'error') {
        break;
      } else if (part.type === 'done') {
        const response = part.response;
        if (plan.holdText && response.text.length > 0) {
          yield frame(chunk(head, { content: response.text }, null, usageField));
        }
        const { usage, kind } = await usageOf(response, parsed, plan.tokenizer);
        yield frame(
          chunk(head, {}, 'stop', { ...usageField, cortexis: extensionOf(response, kind) }),
        );
        if (parsed.includeUsage) {
          yield frame({
            id: head.id,
            object: 'chat.completion.chunk',
            created: head.created,
            model: head.model,
            choices: [],
            usage,
          });
        }
        yield frame('[DONE]');
        return;
      }
    }
    // No `done`: the turn failed (its error part, or a failure before the turn started).
    const failure = await stream.response.then(
      () => new InternalError('The turn ended without an answer'),
      (caught: unknown) => caught,
    );
    yield frame(openAIError(failure).body);
  }
  return frameStream(
    frames(),
    (error) => [frame(openAIError(error).body)],
    () => iterator.return?.(),
  );
}

/**
 * The byte stream of an OpenAI route's frames. Never a torn stream: a failure while pulling
 * ends it with the frames `onError` gives (an error event); cancelling ends the frames and then
 * `release`s the turn's stream.
 */
export function frameStream(
  output: AsyncGenerator<Uint8Array, void>,
  onError: (error: unknown) => AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  release: () => Promise<unknown> | undefined,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await output.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        for await (const bytes of onError(error)) controller.enqueue(bytes);
        controller.close();
      }
    },
    async cancel() {
      await output.return(undefined);
      await release();
    },
  });
}
