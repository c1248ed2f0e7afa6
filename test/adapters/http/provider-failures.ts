/**
 * The failure matrix every HTTP provider adapter must pass against a loopback server:
 * 429 with Retry-After, 500 then success, 401 without leaking the key, a slow first byte
 * cut short by an aborted signal, a stream cut mid-way, a malformed JSON chunk, unknown
 * event types, and a server that is not there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, CortexisError, ProviderError } from '../../../src/errors/index.js';
import type { LLMProvider, LLMRequest, LLMStreamPart } from '../../../src/ports/llm-provider.js';
import { sendJson, sendStream, startLoopback, type Loopback } from './loopback.js';

/** How one provider speaks, for {@link testProviderFailures}. */
export interface ProviderFailureOptions {
  /** Title of the describe block. */
  readonly title: string;
  /** Provider name the errors must carry. */
  readonly provider: string;
  /** Builds the adapter against the loopback server. */
  readonly create: (url: string, apiKey: string) => LLMProvider;
  /** An error body in the provider's documented format. */
  readonly errorBody: (message: string, type: string) => unknown;
  /** A complete recorded stream, one piece per event or line. */
  readonly streamPieces: readonly string[];
  /** The stream's content type. */
  readonly contentType: string;
  /** The deltas the complete stream yields, in order. */
  readonly deltas: readonly string[];
  /** Pieces to send before cutting the connection, and the deltas they carry. */
  readonly cut: { readonly after: number; readonly deltas: readonly string[] };
  /** A piece whose JSON is malformed. */
  readonly malformedPiece: string;
  /** Pieces of event types the adapter does not know. */
  readonly unknownPieces: readonly string[];
}

const REQUEST: LLMRequest = {
  system: 'Answer from the sources only.',
  messages: [{ role: 'user', content: 'Why is the sky blue?' }],
  maxTokens: 100,
  temperature: 0,
};

const API_KEY = 'sk-test-0123456789abcdefSECRET';

async function caught(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

async function consume(
  llm: LLMProvider,
  request: LLMRequest,
): Promise<{ parts: LLMStreamPart[]; error: unknown }> {
  const parts: LLMStreamPart[] = [];
  try {
    for await (const part of llm.stream(request)) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  return { parts, error: undefined };
}

function deltas(parts: readonly LLMStreamPart[]): string[] {
  return parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));
}

/** Registers the failure matrix for one provider adapter. */
export function testProviderFailures(options: ProviderFailureOptions): void {
  describe(options.title, () => {
    let server: Loopback;
    let llm: LLMProvider;

    beforeEach(async () => {
      server = await startLoopback();
      llm = options.create(server.url, API_KEY);
    });

    afterEach(async () => {
      await server.close();
    });

    it('turns a 429 with Retry-After into a retryable ProviderError with retryAfterMs', async () => {
      server.handle((_request, response) =>
        sendJson(response, 429, options.errorBody('Rate limit reached', 'rate_limit_error'), {
          'retry-after': '7',
        }),
      );
      for (const call of [() => llm.generate(REQUEST), () => consume(llm, REQUEST).then(rethrow)]) {
        const error = await caught(call);
        expect(ProviderError.isInstance(error)).toBe(true);
        const providerError = error as ProviderError;
        expect(providerError.status).toBe(429);
        expect(providerError.retryable).toBe(true);
        expect(providerError.retryAfterMs).toBe(7000);
        expect(providerError.provider).toBe(options.provider);
        expect(providerError.message).toContain('Rate limit reached');
      }
    });

    it('prefers retry-after-ms and reads an HTTP-date Retry-After', async () => {
      server.handle((_request, response) =>
        sendJson(response, 429, options.errorBody('slow down', 'rate_limit_error'), {
          'retry-after-ms': '1500',
          'retry-after': '30',
        }),
      );
      expect(((await caught(() => llm.generate(REQUEST))) as ProviderError).retryAfterMs).toBe(
        1500,
      );
      const date = new Date(Date.now() + 60_000).toUTCString();
      server.handle((_request, response) =>
        sendJson(response, 429, options.errorBody('slow down', 'rate_limit_error'), {
          'retry-after': date,
        }),
      );
      const error = (await caught(() => llm.generate(REQUEST))) as ProviderError;
      expect(error.retryAfterMs).toBeGreaterThan(50_000);
      expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('marks a 500 retryable and does not retry by itself; the next call succeeds', async () => {
      let calls = 0;
      server.handle(async (_request, response) => {
        calls += 1;
        if (calls === 1) {
          sendJson(response, 500, options.errorBody('Internal server error', 'api_error'));
        } else {
          await sendStream(response, options.streamPieces, { contentType: options.contentType });
        }
      });
      const { parts: failed, error } = await consume(llm, REQUEST);
      expect(failed).toEqual([]);
      expect(ProviderError.isInstance(error)).toBe(true);
      expect((error as ProviderError).status).toBe(500);
      expect((error as ProviderError).retryable).toBe(true);
      expect(calls).toBe(1);
      const { parts, error: second } = await consume(llm, REQUEST);
      expect(second).toBeUndefined();
      expect(deltas(parts)).toEqual(options.deltas);
      expect(calls).toBe(2);
    });

    it('marks a 401 not retryable and never puts the API key in the message', async () => {
      server.handle((_request, response) =>
        sendJson(
          response,
          401,
          options.errorBody(`Incorrect API key provided: ${API_KEY}`, 'authentication_error'),
        ),
      );
      const error = (await caught(() => llm.generate(REQUEST))) as ProviderError;
      expect(ProviderError.isInstance(error)).toBe(true);
      expect(error.status).toBe(401);
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('Incorrect API key provided');
      expect(error.message).not.toContain(API_KEY);
      expect(error.message).not.toContain('SECRET');
      expect(JSON.stringify(error)).not.toContain(API_KEY);
    });

    it('rejects with AbortError when the signal fires while waiting for the first byte', async () => {
      server.handle(() => {
        // Never answers: the client waits for its first byte until the signal fires.
      });
      for (const call of [
        (signal: AbortSignal) => llm.generate({ ...REQUEST, signal }),
        (signal: AbortSignal) => consume(llm, { ...REQUEST, signal }).then(rethrow),
      ]) {
        const controller = new AbortController();
        const arrived = server.nextRequest();
        const pending = caught(() => call(controller.signal));
        await arrived;
        controller.abort(new Error('user pressed stop'));
        const error = await pending;
        expect(AbortError.isInstance(error)).toBe(true);
        expect((error as CortexisError).code).toBe('aborted');
      }
    });

    it('rejects with AbortError when the signal fires mid-stream, after the deltas so far', async () => {
      server.handle((_request, response) =>
        sendStream(response, options.streamPieces.slice(0, options.cut.after), {
          contentType: options.contentType,
          hang: true,
        }),
      );
      const controller = new AbortController();
      const parts: LLMStreamPart[] = [];
      const error = await caught(async () => {
        for await (const part of llm.stream({ ...REQUEST, signal: controller.signal })) {
          parts.push(part);
          if (deltas(parts).length === options.cut.deltas.length) controller.abort();
        }
      });
      expect(AbortError.isInstance(error)).toBe(true);
      expect(deltas(parts)).toEqual(options.cut.deltas);
    });

    it('yields the deltas of a stream cut mid-way, then a retryable ProviderError', async () => {
      server.handle((_request, response) =>
        sendStream(response, options.streamPieces, {
          contentType: options.contentType,
          cutAfter: options.cut.after,
        }),
      );
      const { parts, error } = await consume(llm, REQUEST);
      expect(deltas(parts)).toEqual(options.cut.deltas);
      expect(parts.some((part) => part.type === 'finish')).toBe(false);
      expect(ProviderError.isInstance(error)).toBe(true);
      expect((error as ProviderError).retryable).toBe(true);
      expect((error as ProviderError).provider).toBe(options.provider);
    });

    it('treats a stream that ends cleanly before its end marker as cut', async () => {
      server.handle((_request, response) =>
        sendStream(response, options.streamPieces.slice(0, options.cut.after), {
          contentType: options.contentType,
        }),
      );
      const { parts, error } = await consume(llm, REQUEST);
      expect(deltas(parts)).toEqual(options.cut.deltas);
      expect(ProviderError.isInstance(error)).toBe(true);
      expect((error as ProviderError).retryable).toBe(true);
    });

    it('rejects a malformed JSON chunk with a non-retryable ProviderError after the deltas before it', async () => {
      server.handle((_request, response) =>
        sendStream(
          response,
          [
            ...options.streamPieces.slice(0, options.cut.after),
            options.malformedPiece,
            ...options.streamPieces.slice(options.cut.after),
          ],
          { contentType: options.contentType },
        ),
      );
      const { parts, error } = await consume(llm, REQUEST);
      expect(deltas(parts)).toEqual(options.cut.deltas);
      expect(ProviderError.isInstance(error)).toBe(true);
      expect((error as ProviderError).retryable).toBe(false);
      expect((error as ProviderError).message).toContain(options.provider);
    });

    it('ignores unknown event types', async () => {
      server.handle((_request, response) =>
        sendStream(
          response,
          [
            ...options.streamPieces.slice(0, 2),
            ...options.unknownPieces,
            ...options.streamPieces.slice(2),
          ],
          { contentType: options.contentType },
        ),
      );
      const { parts, error } = await consume(llm, REQUEST);
      expect(error).toBeUndefined();
      expect(deltas(parts)).toEqual(options.deltas);
      expect(parts[parts.length - 1]?.type).toBe('finish');
    });

    it('turns an unreachable server into a retryable ProviderError', async () => {
      const url = server.url;
      await server.close();
      const unreachable = options.create(url, API_KEY);
      const error = (await caught(() => unreachable.generate(REQUEST))) as ProviderError;
      expect(ProviderError.isInstance(error)).toBe(true);
      expect(error.retryable).toBe(true);
      expect(error.status).toBeUndefined();
      server = await startLoopback();
    });
  });
}

function rethrow(result: { error: unknown }): void {
  if (result.error !== undefined) throw result.error;
}
