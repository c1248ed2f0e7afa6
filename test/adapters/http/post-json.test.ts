import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  errorDetail,
  parseJson,
  parseRetryAfter,
  postJson,
  readJson,
  redact,
} from '../../../src/adapters/http/post-json.js';
import { AbortError, ProviderError } from '../../../src/errors/index.js';
import { sendJson, startLoopback, type Loopback } from './loopback.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it('reads retry-after-ms first, then Retry-After seconds or an HTTP date', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(
      250,
    );
    expect(parseRetryAfter(headers({ 'retry-after': '9' }), now)).toBe(9000);
    expect(parseRetryAfter(headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(
      30_000,
    );
  });

  it('gives 0 for a past date and undefined when absent or unparsable', () => {
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(
      0,
    );
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after-ms': 'x', 'retry-after': '2' }), now)).toBe(2000);
  });
});

describe('errorDetail and redact', () => {
  it("reads OpenAI's, Anthropic's and Ollama's error bodies and plain text", () => {
    expect(
      errorDetail(
        '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
      ),
    ).toBe('Rate limit reached (rate_limit_exceeded)');
    expect(
      errorDetail('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toBe('Overloaded (overloaded_error)');
    expect(errorDetail('{"error":"model \\"x\\" not found"}')).toBe('model "x" not found');
    expect(errorDetail('<html>\n  Bad gateway\n</html>')).toBe('<html> Bad gateway </html>');
    expect(errorDetail('')).toBe('');
    expect(errorDetail('x'.repeat(2000)).length).toBeLessThanOrEqual(501);
  });

  it('removes the given secrets and anything shaped like an sk- key', () => {
    expect(redact('bad key my-secret-token here', ['my-secret-token'])).toBe(
      'bad key [redacted] here',
    );
    expect(redact('Incorrect API key provided: sk-proj-abc*****wxyz.', [])).toBe(
      'Incorrect API key provided: [redacted]',
    );
  });
});

describe('parseJson', () => {
  it('throws a non-retryable ProviderError naming the provider on malformed JSON', () => {
    expect(parseJson('{"a":1}', 'p')).toEqual({ a: 1 });
    try {
      parseJson('{"a":', 'acme');
      expect.fail('should throw');
    } catch (error) {
      expect(ProviderError.isInstance(error)).toBe(true);
      expect((error as ProviderError).retryable).toBe(false);
      expect((error as ProviderError).provider).toBe('acme');
      expect((error as ProviderError).message).toContain('acme');
    }
  });
});

describe('postJson against a loopback server', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback((request, response) =>
      sendJson(response, 200, { echo: request.body }),
    );
  });

  afterEach(async () => {
    await server.close();
  });

  it('posts JSON with the headers given, dropping undefined ones', async () => {
    const response = await postJson({
      provider: 'p',
      url: `${server.url}/x`,
      headers: { 'X-One': '1', 'x-two': undefined },
      body: { hello: 'world' },
    });
    expect(await readJson(response, 'p')).toEqual({ echo: { hello: 'world' } });
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-one']).toBe('1');
    expect('x-two' in (request?.headers ?? {})).toBe(false);
  });

  it('maps statuses to retryable or not per isRetryableStatus', async () => {
    for (const [status, retryable] of [
      [400, false],
      [403, false],
      [404, false],
      [408, true],
      [409, true],
      [429, true],
      [502, true],
      [529, true],
    ] as const) {
      server.handle((_request, response) =>
        sendJson(response, status, { error: { message: `s${status}` } }),
      );
      const error = await postJson({ provider: 'p', url: server.url, body: {} }).catch(
        (e: unknown) => e,
      );
      expect(ProviderError.isInstance(error), String(status)).toBe(true);
      expect((error as ProviderError).status).toBe(status);
      expect((error as ProviderError).retryable, String(status)).toBe(retryable);
      expect((error as ProviderError).message).toContain(`s${status}`);
    }
  });

  it('never sends when the signal already fired, and uses an injected fetch', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      postJson({ provider: 'p', url: server.url, body: {}, signal: controller.signal }),
    ).rejects.toSatisfy(AbortError.isInstance);
    expect(server.requests).toEqual([]);
    const seen: string[] = [];
    await postJson({
      provider: 'p',
      url: 'http://injected.invalid/x',
      body: {},
      fetch: async (url) => {
        seen.push(url);
        return new Response('{}', { status: 200 });
      },
    });
    expect(seen).toEqual(['http://injected.invalid/x']);
  });

  it('maps a failing fetch to a retryable ProviderError without the secret', async () => {
    const error = await postJson({
      provider: 'p',
      url: server.url,
      body: {},
      secrets: ['TOPSECRET'],
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED TOPSECRET') });
      },
    }).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain('ECONNREFUSED');
    expect((error as ProviderError).message).not.toContain('TOPSECRET');
  });
});
