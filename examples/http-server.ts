/**
 * The web chat demo: serves `examples/web-chat/` (a static page, no build step) and the chat
 * API from `cortexis/http` under `/api`, over an engine that answers from this repository's
 * `docs/` folder — offline, with the extractive model.
 * Run: node --import tsx examples/http-server.ts   (PORT=3000 picks the port; default 3000)
 *
 * DEMO ONLY: authentication trusts the `X-Demo-User` header the page sends. Anyone can claim
 * any user id. A real server verifies a session cookie or token in `authenticate`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readdir, readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createChatEngine,
  createExtractiveProvider,
  type ChatEngine,
  type IngestDocument,
} from 'cortexis';
import { createChatHandler, toNodeListener, type HttpUser } from 'cortexis/http';

const here = fileURLToPath(new URL('.', import.meta.url));
/** The static page. */
export const WEB_CHAT_DIR = join(here, 'web-chat');
/** The documents the demo answers from: the same `docs/` folder the CLI examples use. */
export const DOCS_DIR = join(here, '..', 'docs');
/** Header the demo page sends with its (made-up) user id. */
export const DEMO_USER_HEADER = 'x-demo-user';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/** Settings of {@link startWebChatServer}. */
export interface WebChatServerOptions {
  /** Port to listen on; 0 picks a free one (default 0). */
  readonly port?: number | undefined;
  /** Interface to listen on (default `127.0.0.1`: the demo is not meant to be exposed). */
  readonly host?: string | undefined;
  /** The engine to serve, used as is; omitted: a new offline engine with `docs/` ingested. */
  readonly engine?: ChatEngine | undefined;
  /** Pause before each streamed word of the default engine's answers, ms (default 20). */
  readonly streamDelayMs?: number | undefined;
}

/** A running demo server. */
export interface WebChatServer {
  /** Base URL of the page, e.g. `http://127.0.0.1:3000/`. */
  readonly url: string;
  /** The engine behind the API. */
  readonly engine: ChatEngine;
  /** Stops the server (open connections are closed). */
  close(): Promise<void>;
}

/**
 * DEMO ONLY: the caller is whoever the `X-Demo-User` header says. The page always sends
 * `demo`. Never authenticate like this outside a local demo.
 */
export function demoAuthenticate(request: Request): HttpUser | null {
  const user = request.headers.get(DEMO_USER_HEADER);
  return user && /^[A-Za-z0-9_-]{1,64}$/.test(user) ? { id: user } : null;
}

/** The markdown files under `dir` as documents: id = relative path, title = first heading. */
export async function readMarkdownDocs(dir: string): Promise<IngestDocument[]> {
  const names = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.md'));
  names.sort();
  const docs: IngestDocument[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    const title = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1] ?? name;
    const id = name.split(sep).join('/');
    docs.push({ id, title, text, uri: `docs/${id}` });
  }
  return docs;
}

/**
 * The file under `root` that a URL path names, or null when it names none safely: every
 * segment is percent-decoded and may not be `.` or `..` or contain a slash, backslash or NUL,
 * so no request reaches outside `root`. `/` is `index.html`.
 */
export function resolveStaticPath(root: string, pathname: string): string | null {
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null; // a malformed escape such as %zz
  }
  if (segments.some((part) => part === '.' || part === '..' || /[/\\\0]/.test(part))) return null;
  if (segments.length === 0) segments = ['index.html'];
  const base = resolve(root);
  const file = resolve(base, ...segments);
  // Belt and braces: the checks above already keep the path inside.
  return file.startsWith(base + sep) ? file : null;
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
  });
  response.end(text);
}

/** Serves one file of the page: GET and HEAD only, known content types only. */
async function serveStatic(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    sendText(response, 405, 'Method not allowed');
    return;
  }
  const { pathname } = new URL(request.url ?? '/', 'http://localhost');
  const file = resolveStaticPath(WEB_CHAT_DIR, pathname);
  const type = file ? CONTENT_TYPES[extname(file).toLowerCase()] : undefined;
  if (!file || !type) {
    sendText(response, 404, 'Not found');
    return;
  }
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
    const body = await readFile(file);
    response.writeHead(200, {
      'content-type': type,
      'content-length': String(body.byteLength),
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      // Everything comes from this server: no CDN, works offline.
      'content-security-policy': "default-src 'self'; img-src 'self' data:",
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  } catch {
    sendText(response, 404, 'Not found');
  }
}

/** Starts the demo: the page at `/`, the chat API at `/api`. */
export async function startWebChatServer(
  options: WebChatServerOptions = {},
): Promise<WebChatServer> {
  let engine = options.engine;
  if (!engine) {
    engine = createChatEngine({
      // The offline extractive model, slowed a little per piece so the page shows streaming.
      llm: createExtractiveProvider({ delayMs: options.streamDelayMs ?? 20 }),
    });
    await engine.ingest(await readMarkdownDocs(DOCS_DIR));
  }
  const api = toNodeListener(
    createChatHandler(engine, { basePath: '/api', authenticate: demoAuthenticate }),
  );
  const server = createServer((request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    if (pathname === '/api' || pathname.startsWith('/api/')) api(request, response);
    else void serveStatic(request, response);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => done());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    engine,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        server.closeAllConnections();
      }),
  };
}

// Run as a script: node --import tsx examples/http-server.ts
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env['PORT'] ?? 3000);
  const server = await startWebChatServer({ port, host: process.env['HOST'] });
  console.log(`Web chat demo (demo-only auth): ${server.url}`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
