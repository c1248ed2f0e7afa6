/**
 * The streamed form of `POST /v1/responses`: a turn's stream parts as the Server-Sent Events the
 * `openai` client's `responses.stream` / `responses.create({ stream: true })` read —
 * `response.created`, `response.in_progress`, `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`,
 * `response.content_part.done`, `response.output_item.done`, `response.completed` — each with
 * its `sequence_number`. A turn that fails mid-stream ends with `error` and `response.failed`,
 * carrying a client-safe message.
 */
import { InternalError } from '../errors/index.js';
import type { ChatStream } from '../stream.js';
import type { ChatStreamPart } from '../types.js';
import { openAIError } from './openai-error.js';
import { frameStream } from './openai-stream.js';
import type { TokenCounter } from './openai-response.js';
import {
  outputMessage,
  outputText,
  responseObject,
  type ResponseHead,
} from './openai-responses.js';

const encoder = new TextEncoder();

/** Settings of one streamed response. */
interface ResponseStreamPlan {
  readonly head: ResponseHead;
  /** Hold the text until the turn ends (the judge may still remove sentences). */
  readonly holdText: boolean;
  readonly tokenizer: TokenCounter;
}

/** The events of a streamed response, as SSE bytes. */
export function responseFrames(
  stream: ChatStream,
  iterator: AsyncIterator<ChatStreamPart>,
  first: IteratorResult<ChatStreamPart>,
  plan: ResponseStreamPlan,
): ReadableStream<Uint8Array> {
  const { head, tokenizer } = plan;
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): Uint8Array =>
    encoder.encode(
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`,
    );
  const at = { item_id: head.messageId, output_index: 0, content_index: 0 };
  let failed = false;
  const failure = async function* (error: unknown): AsyncGenerator<Uint8Array> {
    if (failed) return;
    failed = true;
    const { body } = openAIError(error);
    const code = body.error.code ?? 'server_error';
    yield event('error', { code, message: body.error.message, param: body.error.param });
    const response = await responseObject(
      head,
      { status: 'failed', error: { code, message: body.error.message } },
      tokenizer,
    );
    yield event('response.failed', { response });
  };

  async function* frames(): AsyncGenerator<Uint8Array> {
    const started = await responseObject(head, { status: 'in_progress' }, tokenizer);
    yield event('response.created', { response: started });
    yield event('response.in_progress', { response: started });
    yield event('response.output_item.added', {
      output_index: 0,
      item: outputMessage(head, '', 'in_progress'),
    });
    yield event('response.content_part.added', { ...at, part: outputText('') });
    let next = first;
    for (; !next.done; next = await iterator.next()) {
      const part = next.value;
      if (part.type === 'text-delta' && !plan.holdText && part.text.length > 0) {
        yield event('response.output_text.delta', { ...at, delta: part.text, logprobs: [] });
      } else if (part.type === 'error') {
        break;
      } else if (part.type === 'done') {
        const { text } = part.response;
        if (plan.holdText && text.length > 0) {
          yield event('response.output_text.delta', { ...at, delta: text, logprobs: [] });
        }
        yield event('response.output_text.done', { ...at, text, logprobs: [] });
        yield event('response.content_part.done', { ...at, part: outputText(text) });
        yield event('response.output_item.done', {
          output_index: 0,
          item: outputMessage(head, text, 'completed'),
        });
        const response = await responseObject(
          head,
          { status: 'completed', response: part.response },
          tokenizer,
        );
        yield event('response.completed', { response });
        return;
      }
    }
    // No `done`: the turn failed (its error part, or a failure before the turn started).
    yield* failure(
      await stream.response.then(
        () => new InternalError('The turn ended without an answer'),
        (caught: unknown) => caught,
      ),
    );
  }
  // Whatever fails while pulling is reported as the response's failure.
  return frameStream(frames(), failure, () => iterator.return?.());
}
