/**
 * SSE `error` frames leak nothing: whatever fails — the model before or during the stream, the
 * database while storing — the frame carries the error's code and the same client-safe message
 * as the JSON answer, never the raw message (a URL with credentials, an internal address, a
 * file path, the upstream text, Postgres' complaint). Rate limits and validation errors keep
 * what a client needs: `retryAfterMs`, `issues`.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createChatEngine } from '../../src/engine.js';
import type { EngineConfig } from '../../src/config.js';
import { createChatHandler } from '../../src/http/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

const INTERNALS = [
  'postgres://user:secret@10.0.0.5/db',
  'user:secret',
  '10.0.0.5',
  '/home/app/secret.txt',
  'invalid byte sequence',
];
const RAW = `connect ECONNREFUSED postgres://user:secret@10.0.0.5/db reading /home/app/secret.txt`;

/** The `error` frames of an SSE body, parsed. */
function errorFrames(body: string): { error: Record<string, unknown> }[] {
  return [...body.matchAll(/^event: error\ndata: (.*)$/gm)].map(
    (match) => JSON.parse(match[1]!) as { error: Record<string, unknown> },
  );
}

function expectNoInternals(text: string): void {
  for (const needle of INTERNALS) expect(text).not.toContain(needle);
}

async function engineWith(config: EngineConfig) {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  return engine;
}

async function ask(engine: Awaited<ReturnType<typeof engineWith>>, accept: string) {
  const handler = createChatHandler(engine, {
    authenticate: () => ({ id: 'u' }),
    rateLimiter: false,
  });
  const created = await handler(new Request('http://x/conversations', { method: 'POST' }));
  const { id } = (await created.json()) as { id: string };
  return handler(
    new Request(`http://x/conversations/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ content: 'What is the refund policy?' }),
    }),
  );
}

describe('SSE error frames', () => {
  it('carry the JSON answer’s code and generic message when the model fails before streaming', async () => {
    const engine = await engineWith({ llm: createMockLLM({ responses: new Error(RAW) }) });
    const json = await ask(engine, 'application/json');
    const jsonBody = await json.text();
    const sse = await ask(engine, 'text/event-stream');
    const sseBody = await sse.text();
    expectNoInternals(jsonBody);
    expectNoInternals(sseBody);
    const [frame] = errorFrames(sseBody);
    const { code, message } = JSON.parse(jsonBody) as { code: string; message: string };
    expect(frame!.error).toMatchObject({ code, message });
    expect(code).toBe('provider_error');
  });

  it('leak nothing when the stream breaks mid-way, and name the stored partial answer', async () => {
    const engine = await engineWith({
      llm: createMockLLM({
        responses: { chunks: ['Refunds take ', '14 days'], errorAfter: new Error(RAW) },
      }),
    });
    const body = await (await ask(engine, 'text/event-stream')).text();
    expectNoInternals(body);
    const frames = errorFrames(body);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({
      error: { code: 'provider_error', retryable: false },
      partialMessageId: expect.any(String),
    });
  });

  it('leak nothing of a database failure while storing (toSSE used directly)', async () => {
    const store = createMemorySessionStore();
    const engine = await engineWith({
      sessionStore: {
        ...store,
        getSession: store.getSession.bind(store),
        appendMessages: () =>
          Promise.reject(
            new Error(
              'invalid byte sequence for encoding "UTF8": 0x00 at postgres://user:secret@10.0.0.5/db',
            ),
          ),
      },
    });
    const session = await engine.createSession({ userId: 'u' });
    const stream = engine.stream({
      sessionId: session.id,
      userId: 'u',
      message: 'What is the refund policy?',
    });
    const body = await new Response(stream.toSSE()).text();
    expectNoInternals(body);
    expect(errorFrames(body)).toHaveLength(1);
    // Iterating the stream still gives the server the raw error, for its logs.
    const parts = [];
    for await (const part of stream) parts.push(part);
    expect(JSON.stringify(parts.at(-1))).toContain('invalid byte sequence');
  });

  it('keep retryAfterMs for a rate limit and the issues of a validation error', async () => {
    const engine = await engineWith({
      rateLimit: { enabled: true, limit: 1, windowMs: 60_000, flood: { enabled: false } },
    });
    await engine.chat({ userId: 'u', message: 'What is the refund policy?', mode: 'query' });
    const limited = errorFrames(
      await new Response(
        engine.stream({ userId: 'u', message: 'And shipping?', mode: 'query' }).toSSE(),
      ).text(),
    );
    expect(limited[0]!.error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      retryAfterMs: expect.any(Number),
    });
    const invalid = errorFrames(
      await new Response(engine.stream({ userId: 'v', message: '   ' }).toSSE()).text(),
    );
    expect(invalid[0]!.error).toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'message' }],
    });
  });
});
