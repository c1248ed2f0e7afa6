import {
  encodeUIMessageStream,
  streamErrorBody,
  uiMessageChunks,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageStreamOptions,
  type UIMessageStreamResponseInit,
} from './ui-message-stream.js';
import type { ChatResponse, ChatStreamPart } from './types.js';

const encoder = new TextEncoder();

/**
 * A streamed turn: iterate it for parts (`route`, `sources`, `text-delta`…, `citations`,
 * `confidence`, then `done` or `error`), or await `.text` / `.response`. Parts are buffered,
 * so a late or second reader still sees every part.
 */
export class ChatStream implements AsyncIterable<ChatStreamPart> {
  /** The final response; rejects with the turn's `CortexisError`. */
  readonly response: Promise<ChatResponse>;
  /** The final answer text. */
  readonly text: Promise<string>;
  readonly #parts: ChatStreamPart[] = [];
  #closed = false;
  #wake: (() => void)[] = [];

  /** Starts the turn: `run` receives the part sink and resolves with the response. */
  constructor(run: (sink: (part: ChatStreamPart) => void) => Promise<ChatResponse>) {
    this.response = run((part) => this.#push(part)).finally(() => this.#close());
    this.text = this.response.then((response) => response.text);
    // Errors reach whoever awaits; never an unhandled rejection for a caller that only iterates.
    this.response.catch(() => undefined);
    this.text.catch(() => undefined);
  }

  #push(part: ChatStreamPart): void {
    if (this.#closed) return;
    this.#parts.push(part);
    this.#notify();
  }

  #close(): void {
    this.#closed = true;
    this.#notify();
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const wake of waiting) wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatStreamPart> {
    let index = 0;
    for (;;) {
      while (index < this.#parts.length) yield this.#parts[index++]!;
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  /** Text deltas only. */
  async *textStream(): AsyncGenerator<string> {
    for await (const part of this) if (part.type === 'text-delta') yield part.text;
  }

  /**
   * The parts as Server-Sent Events (`event: <type>`, `data: <json>` whose object repeats the
   * `type`, so readers that ignore `event:` lines still tell parts apart), safe to send to a
   * browser: an `error` frame carries the error's code, a client-safe message (never a
   * provider's or database's own message), `retryable`, and `retryAfterMs` or `issues` where
   * they apply — the same body the HTTP handler answers with. Iterate the stream for the raw
   * error.
   */
  toSSE(): ReadableStream<Uint8Array> {
    const iterator = this[Symbol.asyncIterator]();
    const frameData = async (part: ChatStreamPart): Promise<object> => {
      if (part.type !== 'error') return part;
      // The turn rejects with the error the part describes; it has the details (issues, wait).
      const safe = streamErrorBody(part.error, await this.#failure());
      return {
        type: part.type,
        error: { ...safe, retryable: part.error.retryable },
        partialMessageId: part.partialMessageId,
      };
    };
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        const data = await frameData(next.value);
        controller.enqueue(
          encoder.encode(`event: ${next.value.type}\ndata: ${JSON.stringify(data)}\n\n`),
        );
      },
      async cancel() {
        await iterator.return?.();
      },
    });
  }

  /** A web `Response` streaming the parts as Server-Sent Events. */
  toResponse(init?: ResponseInit): Response {
    const headers = new Headers(init?.headers);
    headers.set('content-type', 'text/event-stream; charset=utf-8');
    headers.set('cache-control', 'no-cache');
    headers.set('connection', 'keep-alive');
    return new Response(this.toSSE(), { ...init, headers });
  }

  /**
   * The turn in the AI SDK UI message stream protocol (v1), as the bytes `useChat`'s
   * `DefaultChatTransport` and `readUIMessageStream` read: text parts, one `source-document`
   * part per source, data parts `data-route`, `data-citations`, `data-confidence`,
   * `data-grounding` and `data-guard`, and `finish` with the stored message ids as message
   * metadata. Errors arrive as an `error` chunk with a client-safe message.
   */
  toUIMessageStream(options: UIMessageStreamOptions = {}): ReadableStream<Uint8Array> {
    return encodeUIMessageStream(
      uiMessageChunks(this, {
        messageId: options.messageId,
        sendSources: options.sendSources,
        failure: () => this.#failure(),
      }),
    );
  }

  /**
   * A web `Response` streaming {@link ChatStream.toUIMessageStream}, with the protocol's
   * headers (`x-vercel-ai-ui-message-stream: v1`): return it from your own route for `useChat`.
   *
   * @example
   * ```ts
   * // app/api/chat/route.ts (Next.js), for `useChat` on the client
   * import { openUIChat, parseUIChatRequest } from 'cortexis/http';
   *
   * export async function POST(request: Request) {
   *   const userId = await currentUserId(request); // your auth
   *   const turn = parseUIChatRequest(await request.json());
   *   await openUIChat(engine, turn.chatId, userId); // created on first use; 404 if not theirs
   *   return engine
   *     .stream({ sessionId: turn.chatId, userId, message: turn.message, messageId: turn.messageId })
   *     .toUIMessageStreamResponse();
   * }
   * ```
   */
  toUIMessageStreamResponse(init: UIMessageStreamResponseInit = {}): Response {
    const { messageId, sendSources, ...responseInit } = init;
    const headers = new Headers(responseInit.headers);
    for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) headers.set(name, value);
    return new Response(this.toUIMessageStream({ messageId, sendSources }), {
      ...responseInit,
      headers,
    });
  }

  /** The turn's failure, or undefined when it succeeded (settles when the turn ends). */
  #failure(): Promise<unknown> {
    return this.response.then(
      () => undefined,
      (caught: unknown) => caught,
    );
  }
}
