import type { ChatHandler } from './handler.js';

/**
 * What {@link toNodeListener} uses of a `node:http` `IncomingMessage` (declared here, so that
 * the published types do not need `@types/node`).
 */
export interface NodeRequestLike extends AsyncIterable<Uint8Array> {
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request target (path and query). */
  readonly url?: string | undefined;
  /** The request method. */
  readonly method?: string | undefined;
}

/** What {@link toNodeListener} uses of a `node:http` `ServerResponse`. */
export interface NodeResponseLike {
  /** Whether `end()` was called and everything was flushed. */
  readonly writableFinished: boolean;
  /** Whether the status line and headers were sent. */
  readonly headersSent: boolean;
  /** Subscribes to `close` (the connection ended) or `drain` (ready for more). */
  on(event: 'close' | 'drain', listener: () => void): unknown;
  /** Unsubscribes a listener. */
  off(event: 'close' | 'drain', listener: () => void): unknown;
  /** Sends the status line and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Writes a chunk of the body; `false` when the caller should wait for `drain`. */
  write(chunk: Uint8Array): boolean;
  /** Ends the response, with a last chunk. */
  end(chunk?: string): unknown;
}

/** Resolves on the response's next `drain`, or when it closes (the client disconnected). */
function drainOrClose(outgoing: NodeResponseLike): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
  });
}

/**
 * Adapts a web-standard handler to `node:http`: `http.createServer(toNodeListener(handler))`.
 * When the client disconnects — also while a slow reader holds the response back — the
 * request's signal aborts and the response body is cancelled, so a streamed turn stops and its
 * partial answer is kept.
 */
export function toNodeListener(
  handler: ChatHandler,
): (request: NodeRequestLike, response: NodeResponseLike) => void {
  return (incoming, outgoing) => {
    const controller = new AbortController();
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) controller.abort();
    });
    const host = incoming.headers.host ?? 'localhost';
    const url = new URL(incoming.url ?? '/', `http://${host}`);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    const method = incoming.method ?? 'GET';
    const iterator = incoming[Symbol.asyncIterator]();
    const body =
      method === 'GET' || method === 'HEAD'
        ? null
        : new ReadableStream<Uint8Array>({
            async pull(stream) {
              const next = await iterator.next();
              if (next.done) stream.close();
              else stream.enqueue(new Uint8Array(next.value));
            },
            async cancel() {
              await iterator.return?.();
            },
          });
    const request = new Request(url, {
      method,
      headers,
      body,
      signal: controller.signal,
      // Required by Node's fetch for a streamed request body.
      ...(body ? { duplex: 'half' } : {}),
    } as RequestInit);
    void (async () => {
      try {
        const response = await handler(request);
        const head: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          head[name] = value;
        });
        outgoing.writeHead(response.status, head);
        if (!response.body) {
          outgoing.end();
          return;
        }
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          // A slow reader: wait for it to catch up, or for it to go away (no drain then).
          if (!outgoing.write(value) && !controller.signal.aborted) await drainOrClose(outgoing);
          if (controller.signal.aborted) {
            // The client left: cancel the body, so the turn behind it stops too.
            await reader.cancel(controller.signal.reason).catch(() => undefined);
            break;
          }
        }
        outgoing.end();
      } catch {
        if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ code: 'internal_error', message: 'Internal server error' }));
      }
    })();
  };
}
