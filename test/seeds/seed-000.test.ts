/**
 * Seed 000 (design): the learning functions it names are public, with its numbers.
 */
import { describe, expect, it } from 'vitest';
import * as cortexis from '../../src/index.js';
import type { RouteEvent } from '../../src/events.js';
import { createChatHandler } from '../../src/http/index.js';
import { createMemoryLearningSink } from '../../src/adapters/memory/learning-sink.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { handbook } from '../fixtures/handbook.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { ValidationError } from '../../src/errors/index.js';

describe('seed 000 §6: reward and session-quality functions are exported', () => {
  it('calculateFeedbackReward: good 1, neutral 0.5, bad −0.5, helpfulness 70/30', () => {
    expect(cortexis.calculateFeedbackReward({ rating: 'good' })).toBe(1);
    expect(cortexis.calculateFeedbackReward({ rating: 'neutral' })).toBe(0.5);
    expect(cortexis.calculateFeedbackReward({ rating: 'bad' })).toBe(-0.5);
    expect(
      cortexis.calculateFeedbackReward({ rating: 'good', sourceHelpfulness: { S1: 1 } }),
    ).toBeCloseTo(0.85);
  });

  it('turnReward and assessSessionQuality', () => {
    expect(cortexis.turnReward(0.8, false)).toBe(0.8);
    expect(cortexis.turnReward(0.8, true)).toBe(0);
    expect(
      cortexis.assessSessionQuality([
        { role: 'user', confidence: null, rating: null, sourceCount: 0 },
        { role: 'assistant', confidence: 0.9, rating: 'good', sourceCount: 5 },
      ]),
    ).toBeCloseTo(0.5 + 0.1 + 0.1 + 0.2);
  });
});

describe('seed 000 §6.1: a trajectory records the route its first turn took', () => {
  it('is relational for a relational question, chat for a session without retrieval', async () => {
    const learningSink = createMemoryLearningSink();
    const sessionStore = createMemorySessionStore();
    const engine = cortexis.createChatEngine({ learningSink, sessionStore });
    await engine.ingest(handbook);
    const routes: string[] = [];
    engine.on('route', (event) => routes.push(event.route));
    const related = await engine.createSession({ userId: 'u' });
    await engine.chat({
      sessionId: related.id,
      userId: 'u',
      message: 'How is the refund policy related to gift cards?',
    });
    const plain = await engine.createSession({ userId: 'u', settings: { rag: false } });
    await engine.chat({ sessionId: plain.id, userId: 'u', message: 'Tell me a story please' });
    await engine.flush();
    const routeOf = async (sessionId: string) => {
      const session = await sessionStore.getSession(sessionId);
      return (await learningSink.getTrajectory(session!.trajectoryId!))?.route;
    };
    expect(routes[0]).toBe('relational');
    expect(await routeOf(related.id)).toBe('relational');
    expect(await routeOf(plain.id)).toBe('chat');
  });
});

describe('seed 000: enableGNN / enableGraphTraversal per request and per session', () => {
  const strategies = async (
    engine: ReturnType<typeof cortexis.createChatEngine>,
    ask: () => Promise<unknown>,
  ) => {
    const seen: RouteEvent['strategy'][] = [];
    const off = engine.on('route', (event) => seen.push(event.strategy));
    await ask();
    off();
    return seen[0];
  };

  it('maps the switches onto graph rerank and graph expansion', async () => {
    const engine = cortexis.createChatEngine();
    await engine.ingest(handbook);
    const question = 'What is the refund policy?';
    const plain = await strategies(engine, () => engine.chat({ message: question, mode: 'query' }));
    expect(plain).toMatchObject({ graph: null, graphRerank: false });
    const on = await strategies(engine, () =>
      engine.chat({
        message: question,
        mode: 'query',
        enableGNN: true,
        enableGraphTraversal: true,
      }),
    );
    expect(on?.graphRerank).toBe(true);
    expect(on?.graph?.depth).toBe(2);
    expect(on?.fusion.graph).toBeGreaterThan(0);
    const session = await engine.createSession({
      userId: 'u',
      settings: { enableGraphTraversal: true, enableGNN: false },
    });
    const bySession = await strategies(engine, () =>
      engine.chat({ sessionId: session.id, userId: 'u', message: question }),
    );
    expect(bySession?.graph?.depth).toBe(2);
    expect(bySession?.graphRerank).toBe(false);
    // The request wins over the session.
    const overridden = await strategies(engine, () =>
      engine.chat({
        sessionId: session.id,
        userId: 'u',
        message: question,
        enableGraphTraversal: false,
      }),
    );
    expect(overridden?.graph).toBeNull();
  });

  it('takes the switches over HTTP', async () => {
    const engine = cortexis.createChatEngine();
    await engine.ingest(handbook);
    const handler = createChatHandler(engine, { authenticate: () => ({ id: 'u' }) });
    const created = await handler(new Request('http://x/conversations', { method: 'POST' }));
    const { id } = (await created.json()) as { id: string };
    const seen: RouteEvent['strategy'][] = [];
    engine.on('route', (event) => seen.push(event.strategy));
    const reply = await handler(
      new Request(`http://x/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'What is the refund policy?', enableGraphTraversal: true }),
      }),
    );
    expect(reply.status).toBe(200);
    expect(seen[0]?.graph?.depth).toBe(2);
  });

  it('refuses a switch that is not a boolean, naming it', async () => {
    const engine = cortexis.createChatEngine();
    await expect(
      engine.chat({ message: 'Hi there', mode: 'query', enableGNN: 'yes' as unknown as boolean }),
    ).rejects.toThrow(/enableGNN/);
  });
});

describe('seed 000 §6.2: findPatterns on the engine and over HTTP', () => {
  it('finds ended conversations like a query, only the caller’s over HTTP', async () => {
    const engine = cortexis.createChatEngine();
    await engine.ingest(handbook);
    for (const userId of ['alice', 'bob']) {
      const session = await engine.createSession({ userId });
      await engine.chat({
        sessionId: session.id,
        userId,
        message: `What is the refund policy for ${userId}?`,
      });
      await engine.endSession({ sessionId: session.id, userId });
    }
    await engine.flush();
    const all = await engine.findPatterns('refund policy', { k: 10 });
    expect(all.map((pattern) => pattern.userId).sort()).toEqual(['alice', 'bob']);
    const mine = await engine.findPatterns('refund policy', { userId: 'alice' });
    expect(mine.map((pattern) => pattern.userId)).toEqual(['alice']);
    expect(mine[0]?.initialQuery).toMatch(/alice/);

    const handler = createChatHandler(engine, {
      authenticate: (request) => ({ id: request.headers.get('x-user') ?? 'nobody' }),
    });
    const response = await handler(
      new Request('http://x/learning/patterns?q=refund+policy&k=5', {
        headers: { 'x-user': 'bob' },
      }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { patterns: { userId: string }[] };
    expect(body.patterns.map((pattern) => pattern.userId)).toEqual(['bob']);
    const missing = await handler(
      new Request('http://x/learning/patterns', { headers: { 'x-user': 'bob' } }),
    );
    expect(missing.status).toBe(400);
    await expect(engine.findPatterns('refund', { k: 0 })).rejects.toThrow(/k/);
  });
});

describe('seed 000 §1.2 / §4: a session chooses its model', () => {
  const named = (model: string, text: string) =>
    createMockLLM({ responses: text, metadata: { provider: 'mock', model } });

  it('answers a session with the model it named; others with the engine’s llm', async () => {
    const engine = cortexis.createChatEngine({
      llm: named('default-model', 'From the default model.'),
      models: { careful: named('careful-model', 'From the careful model.') },
    });
    const careful = await engine.createSession({
      userId: 'u',
      settings: { model: 'careful', rag: false },
    });
    const plain = await engine.createSession({ userId: 'u', settings: { rag: false } });
    const a = await engine.chat({
      sessionId: careful.id,
      userId: 'u',
      message: 'Tell me something',
    });
    const b = await engine.chat({ sessionId: plain.id, userId: 'u', message: 'Tell me something' });
    expect([a.model, a.text]).toEqual(['careful-model', 'From the careful model.']);
    expect([b.model, b.text]).toEqual(['default-model', 'From the default model.']);
  });

  it('refuses a model the engine does not have, naming settings.model', async () => {
    const engine = cortexis.createChatEngine({ models: { careful: named('m', 'x') } });
    const error = await engine
      .createSession({ userId: 'u', settings: { model: 'nope' } })
      .catch((caught: unknown) => caught);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues[0]?.path).toBe('settings.model');
    expect((error as Error).message).toMatch(/known: careful/);
  });

  it('fills the seed’s model, enable_gnn and enable_graph_traversal columns in SQL', async () => {
    const stores = await createSqliteStores({ path: ':memory:' });
    try {
      const engine = cortexis.createChatEngine({
        sessionStore: stores.sessionStore,
        models: { careful: named('careful-model', 'x') },
      });
      const session = await engine.createSession({
        userId: 'u',
        settings: { model: 'careful', enableGNN: true, enableGraphTraversal: false },
      });
      const row = stores.database
        .prepare('SELECT model, enable_gnn, enable_graph_traversal FROM sessions WHERE id = ?')
        .get(session.id);
      expect(row).toEqual({ model: 'careful', enable_gnn: 1, enable_graph_traversal: 0 });
    } finally {
      stores.close();
    }
  });
});
