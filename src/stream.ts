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

  /** The parts as Server-Sent Events (`event: <type>`, `data: <json>`). */
  toSSE(): ReadableStream<Uint8Array> {
    const iterator = this[Symbol.asyncIterator]();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        const { type, ...data } = next.value;
        controller.enqueue(encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
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
