/**
 * The web chat demo server without a browser: static files, path safety, the API mount and
 * its demo-only authentication.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatEngine, createExtractiveProvider } from 'cortexis';
import {
  readMarkdownDocs,
  resolveStaticPath,
  startWebChatServer,
  WEB_CHAT_DIR,
  type WebChatServer,
} from '../../examples/http-server.js';

/** A raw request: the path is sent as is (fetch would normalise `..` away). */
function raw(
  base: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: url.hostname, port: url.port, path, method, headers: { accept: '*/*' } },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (body += chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            type: String(incoming.headers['content-type'] ?? ''),
            body,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('web chat demo server', () => {
  let server: WebChatServer;

  beforeAll(async () => {
    // A small engine keeps this fast; the default one ingests docs/ (covered below).
    const engine = createChatEngine({ llm: createExtractiveProvider() });
    await engine.ingest([
      { id: 'refunds', title: 'Refunds', text: 'Refunds are issued within 14 days.' },
    ]);
    server = await startWebChatServer({ port: 0, engine });
  });

  afterAll(async () => {
    await server.close();
  });

  it('listens on a free local port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.url).not.toMatch(/:0\/$/);
  });

  it('serves the page, its script and its styles with their content types', async () => {
    const page = await raw(server.url, '/');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<script type="module" src="app.js"></script>');
    expect((await raw(server.url, '/app.js')).type).toBe('text/javascript; charset=utf-8');
    expect((await raw(server.url, '/styles.css')).type).toBe('text/css; charset=utf-8');
    const response = await fetch(new URL('/index.html', server.url));
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('never serves a file outside examples/web-chat', async () => {
    for (const path of [
      '/../http-server.ts',
      '/..%2fhttp-server.ts',
      '/%2e%2e/http-server.ts',
      '/%2e%2e%2f%2e%2e%2fpackage.json',
      '/..%5chttp-server.ts',
      '/%00index.html',
      '/%zz',
      '/missing.js',
      '/api-docs.html',
    ]) {
      const response = await raw(server.url, path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).toBe('Not found');
    }
  });

  it('refuses writes to the page', async () => {
    expect((await raw(server.url, '/index.html', 'POST')).status).toBe(405);
    const head = await raw(server.url, '/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('routes /api to the chat handler with demo-only header authentication', async () => {
    const conversations = new URL('/api/conversations', server.url);
    expect((await fetch(new URL('/api/health', server.url))).status).toBe(200);
    expect((await fetch(conversations)).status).toBe(401);
    expect((await fetch(conversations, { headers: { 'x-demo-user': '../evil' } })).status).toBe(
      401,
    );
    const created = await fetch(conversations, {
      method: 'POST',
      headers: { 'x-demo-user': 'alice' },
    });
    expect(created.status).toBe(201);
    const listed = (await (
      await fetch(conversations, { headers: { 'x-demo-user': 'alice' } })
    ).json()) as { sessions: unknown[] };
    expect(listed.sessions).toHaveLength(1);
    const other = (await (
      await fetch(conversations, { headers: { 'x-demo-user': 'bob' } })
    ).json()) as { sessions: unknown[] };
    expect(other.sessions).toHaveLength(0);
  });
});

describe('resolveStaticPath', () => {
  it('maps / to index.html and keeps every path inside the root', () => {
    expect(resolveStaticPath(WEB_CHAT_DIR, '/')).toBe(join(WEB_CHAT_DIR, 'index.html'));
    expect(resolveStaticPath(WEB_CHAT_DIR, '/app.js')).toBe(join(WEB_CHAT_DIR, 'app.js'));
    expect(resolveStaticPath(WEB_CHAT_DIR, '/a/../../x')).toBeNull();
    expect(resolveStaticPath(WEB_CHAT_DIR, '/a%2f..%2f..%2fx')).toBeNull();
    expect(resolveStaticPath(WEB_CHAT_DIR, '/.')).toBeNull();
  });
});

describe('readMarkdownDocs', () => {
  it('reads the bundled docs with their headings as titles', async () => {
    const docs = await readMarkdownDocs(join(import.meta.dirname, '../../docs'));
    const http = docs.find((doc) => doc.id === 'http.md');
    expect(http?.title).toMatch(/^HTTP API/);
    expect(http?.uri).toBe('docs/http.md');
    // Sub-folders are read too, with '/' in their ids on every platform.
    expect(docs.some((doc) => doc.id.startsWith('adapters/'))).toBe(true);
  });
});
