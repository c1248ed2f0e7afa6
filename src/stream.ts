import { CortexisError } from './errors/index.js';
import { clientError, publicMessage } from './http/errors.js';
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
   * The parts as Server-Sent Events (`event: <type>`, `data: <json>`), safe to send to a
   * browser: an `error` frame carries the error's code, a client-safe message (never a
   * provider's or database's own message), `retryable`, and `retryAfterMs` or `issues` where
   * they apply — the same body the HTTP handler answers with. Iterate the stream for the raw
   * error.
   */
  toSSE(): ReadableStream<Uint8Array> {
    const iterator = this[Symbol.asyncIterator]();
    const frameData = async (part: ChatStreamPart): Promise<object> => {
      const { type: _type, ...data } = part;
      if (part.type !== 'error') return data;
      // The turn rejects with the error the part describes; it has the details (issues, wait).
      const failure = await this.response.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const safe = CortexisError.isInstance(failure)
        ? clientError(failure)
        : {
            code: part.error.code,
            message: publicMessage(part.error.code, part.error.message),
          };
      return {
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
}
