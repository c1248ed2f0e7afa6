/**
 * A loopback HTTP server on 127.0.0.1 (port 0) for provider-adapter tests: it records every
 * request (method, path, headers, parsed JSON body) and answers with a handler the test
 * sets, replaying recorded provider streams event by event.
 */
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type ServerResponse,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body parsed as JSON (undefined when empty or not JSON). */
  readonly body: any;
}

/** Answers one request. */
export type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/** A running loopback server. */
export interface Loopback {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Replaces the handler. */
  handle(handler: Handler): void;
  /** Resolves with the next request once it has arrived (before it is answered). */
  nextRequest(): Promise<RecordedRequest>;
  /** Stops the server, dropping open connections. */
  close(): Promise<void>;
}

/** Starts a loopback server answering with `handler` (default: 404). */
export async function startLoopback(handler?: Handler): Promise<Loopback> {
  let current: Handler =
    handler ??
    ((_request, response) => {
      response.writeHead(404).end();
    });
  const requests: RecordedRequest[] = [];
  const waiting: ((request: RecordedRequest) => void)[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const request: RecordedRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body,
      };
      requests.push(request);
      for (const resolve of waiting.splice(0)) resolve(request);
      Promise.resolve(current(request, response)).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(599);
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    nextRequest() {
      return new Promise((resolve) => waiting.push(resolve));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads a recorded provider response from `test/fixtures/providers/`. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/providers/${name}`, import.meta.url), 'utf8');
}

/** The events of a recorded SSE stream (each ending with its blank line). */
export function sseEvents(text: string): string[] {
  return text
    .split(/\n\n/)
    .filter((event) => event.trim() !== '')
    .map((event) => `${event}\n\n`);
}

/** The lines of a recorded NDJSON stream (each ending with its newline). */
export function ndjsonLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `${line}\n`);
}

/** Sends a JSON response. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Options of {@link sendStream}. */
export interface StreamOptions {
  /** Content type (default `text/event-stream`). */
  readonly contentType?: string;
  /** Destroys the socket after this many pieces, without ending the response. */
  readonly cutAfter?: number;
  /** Sends the pieces then leaves the response open (never ends it). */
  readonly hang?: boolean;
}

/**
 * Writes `pieces` one by one, each flushed before the next; then ends the response, cuts
 * the connection (`cutAfter`) or leaves it open (`hang`).
 */
export async function sendStream(
  response: ServerResponse,
  pieces: readonly string[],
  options: StreamOptions = {},
): Promise<void> {
  response.writeHead(200, {
    'content-type': options.contentType ?? 'text/event-stream',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();
  const count = Math.min(pieces.length, options.cutAfter ?? pieces.length);
  for (const piece of pieces.slice(0, count)) {
    await new Promise<void>((resolve, reject) =>
      response.write(piece, (error) => (error ? reject(error) : resolve())),
    );
  }
  if (options.cutAfter !== undefined) {
    response.socket?.destroy();
    return;
  }
  if (!options.hang) response.end();
}

/**
 * A deterministic answer to the last user message, as the pieces a server streams: the same
 * question always gives the same text, so `deterministic: true` holds for the conformance
 * suite.
 */
export function deterministicAnswer(body: any): string[] {
  const messages: { role: string; content: string }[] = Array.isArray(body?.messages)
    ? body.messages
    : [];
  const question = [...messages].reverse().find((message) => message.role === 'user');
  const text = `You asked: ${question?.content ?? '(nothing)'} The sources answer it [source: S1].`;
  return text.split(/(?<= )/);
}
