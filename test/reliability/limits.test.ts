/**
 * Limits that hold (issue 14, item 2): the default HTTP limiter counts per user across
 * conversations, so rotating conversation ids — made-up ones in query mode, or new ones —
 * never buys more model calls; creating conversations has a budget of its own; the engine's
 * opt-in limiter counts per user too; and limiter keys never collide, whatever the ids contain.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.js';
import { rateLimitKey } from '../../src/util/rate-limit-key.js';
import { RateLimitError } from '../../src/errors/index.js';
import { createChatEngine } from '../../src/engine.js';
import { createChatHandler } from '../../src/http/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

/** The default limit of the HTTP handler: 60 per 5 minutes. */
const DEFAULT_LIMIT = 60;

describe('rate limits that hold', () => {
  it('300 query-mode messages to rotating made-up ids: no model call, at most 60 counted', async () => {
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const engine = createChatEngine({ llm });
    await engine.ingest(handbook);
    // Flood detection off: this checks the window, which flood detection would only tighten.
    const handler = createChatHandler(engine, {
      authenticate: () => ({ id: 'mallory' }),
      rateLimiter: createMemoryRateLimiter({ flood: false }),
    });
    const statuses = new Map<number, number>();
    for (let index = 0; index < 300; index++) {
      const response = await handler(
        new Request(`http://x/conversations/${crypto.randomUUID()}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'What is the refund policy?', mode: 'query' }),
        }),
      );
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 404: DEFAULT_LIMIT, 429: 300 - DEFAULT_LIMIT });
    expect(llm.calls).toHaveLength(0);
  });

  it('a new conversation per message: answers stop at the user’s budget', async () => {
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const engine = createChatEngine({ llm });
    await engine.ingest(handbook);
    const handler = createChatHandler(engine, {
      authenticate: () => ({ id: 'mallory' }),
      rateLimiter: createMemoryRateLimiter({ limit: 5, flood: false }),
    });
    let answered = 0;
    let created = 0;
    for (let index = 0; index < 20; index++) {
      const opened = await handler(new Request('http://x/conversations', { method: 'POST' }));
      if (opened.status !== 201) continue;
      created++;
      const { id } = (await opened.json()) as { id: string };
      const response = await handler(
        new Request(`http://x/conversations/${id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'What is the refund policy?' }),
        }),
      );
      if (response.status === 200) answered++;
    }
    expect(created).toBe(5);
    expect(answered).toBe(5);
    expect(llm.calls).toHaveLength(5);
  });

  it('the engine’s limiter counts per user across sessions, new ones included', async () => {
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const engine = createChatEngine({
      llm,
      rateLimit: { enabled: true, limit: 3, windowMs: 60_000, flood: { enabled: false } },
    });
    await engine.ingest(handbook);
    const outcomes: string[] = [];
    for (let index = 0; index < 6; index++) {
      const session = await engine.createSession({ userId: 'u1' });
      const result = await engine
        .chat({ sessionId: session.id, userId: 'u1', message: 'What is the refund policy?' })
        .then(
          () => 'ok',
          (error: unknown) => (RateLimitError.isInstance(error) ? 'limited' : String(error)),
        );
      outcomes.push(result);
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'limited', 'limited', 'limited']);
    // Another user has a budget of their own.
    await expect(
      engine.chat({ userId: 'u2', message: 'What is the refund policy?' }),
    ).resolves.toMatchObject({ text: expect.any(String) });
  });

  it('query mode through the engine on a conversation the user does not own is NotFound', async () => {
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const engine = createChatEngine({ llm });
    await engine.ingest(handbook);
    const session = await engine.createSession({ userId: 'alice' });
    for (const sessionId of [session.id, 'made-up']) {
      const error = await engine
        .chat({
          sessionId,
          userId: 'mallory',
          message: 'What is the refund policy?',
          mode: 'query',
        })
        .catch((caught: unknown) => caught);
      expect((error as { code?: string }).code, sessionId).toBe('not_found');
    }
    expect(llm.calls).toHaveLength(0);
    await expect(
      engine.chat({ sessionId: session.id, userId: 'alice', message: 'Refunds?', mode: 'query' }),
    ).resolves.toMatchObject({ sessionId: null });
  });

  it('rateLimitKey never maps different parts to one key', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }),
        (a, b) => {
          fc.pre(JSON.stringify(a) !== JSON.stringify(b));
          expect(rateLimitKey(...a)).not.toBe(rateLimitKey(...b));
        },
      ),
      { seed: 14, numRuns: 300 },
    );
    expect(rateLimitKey('message', 'user', 'acme:bob')).not.toBe(
      rateLimitKey('message', 'user:acme', 'bob'),
    );
  });
});
