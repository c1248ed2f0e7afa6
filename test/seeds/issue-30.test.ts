/**
 * Issue 30: the deviations from the seeds that stay, each shown doing what `docs/seeds.md` says
 * instead (SQL session columns, generation and citation defaults, synthesis aggregation).
 */
import { describe, expect, it } from 'vitest';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { createChatEngine } from '../../src/engine.js';
import type { RouteEvent } from '../../src/events.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { handbook } from '../fixtures/handbook.js';

describe('seed 000 §4.1: session columns hold what the session sets, NULL for the engine default', () => {
  it('NULL columns follow the engine’s current defaults; set ones are stored', async () => {
    const stores = await createSqliteStores({ path: ':memory:' });
    try {
      const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
      const engine = createChatEngine({ sessionStore: stores.sessionStore, llm });
      await engine.ingest(handbook);
      const plain = await engine.createSession({ userId: 'u' });
      const tuned = await engine.createSession({
        userId: 'u',
        settings: { temperature: 0.7, maxTokens: 2048, searchDepth: 'medium', enableGNN: true },
      });
      const row = (id: string) =>
        stores.database
          .prepare(
            'SELECT model, temperature, max_tokens, search_depth, enable_gnn, enable_graph_traversal FROM sessions WHERE id = ?',
          )
          .get(id);
      expect(row(plain.id)).toEqual({
        model: null,
        temperature: null,
        max_tokens: null,
        search_depth: null,
        enable_gnn: null,
        enable_graph_traversal: null,
      });
      expect(row(tuned.id)).toEqual({
        model: null,
        temperature: 0.7,
        max_tokens: 2048,
        search_depth: 'medium',
        enable_gnn: 1,
        enable_graph_traversal: null,
      });
      // NULL means "the engine's default at the time of the turn", not a stored copy of it.
      await engine.chat({
        sessionId: plain.id,
        userId: 'u',
        message: 'What is the refund policy?',
      });
      expect(llm.calls.at(-1)?.request).toMatchObject({ temperature: 0.2, maxTokens: 512 });
      const later = createChatEngine({
        sessionStore: stores.sessionStore,
        llm,
        generation: { temperature: 0.5, maxTokens: 300 },
      });
      await later.ingest(handbook);
      await later.chat({ sessionId: plain.id, userId: 'u', message: 'What is the refund policy?' });
      expect(llm.calls.at(-1)?.request).toMatchObject({ temperature: 0.5, maxTokens: 300 });
      await later.chat({ sessionId: tuned.id, userId: 'u', message: 'What is the refund policy?' });
      expect(llm.calls.at(-1)?.request).toMatchObject({ temperature: 0.7, maxTokens: 2048 });
    } finally {
      stores.close();
    }
  });
});

describe('seeds 002/003: generation and citation defaults', () => {
  it('temperature 0.2 and 512 answer tokens; no citation line unless asked, sources structured', async () => {
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const engine = createChatEngine({ llm });
    expect(engine.config.generation).toMatchObject({ temperature: 0.2, maxTokens: 512 });
    expect(engine.config.citations.includeCitations).toBe(false);
    await engine.ingest(handbook);
    const reply = await engine.chat({ message: 'What is the refund policy?' });
    expect(reply.text).toBe('Refunds take 14 days [source: S1].');
    expect(reply.text).not.toContain('Sources:');
    expect(reply.sources[0]).toMatchObject({ id: 'S1', title: expect.any(String) });
    const withLine = createChatEngine({ llm, citations: { includeCitations: true } });
    await withLine.ingest(handbook);
    const lined = await withLine.chat({ message: 'What is the refund policy?' });
    expect(lined.text).toMatch(/\n\nSources: S1 \([^)]+\)$/);
  });
});

describe('seed 000 §2.2: synthesis aggregates by relevance through its strategy, not a separate step', () => {
  it('routes a summary question to the synthesis strategy: more sources, graph rerank, rerank, several documents', async () => {
    const engine = createChatEngine({
      llm: createMockLLM({ responses: 'Overview [source: S1].' }),
    });
    await engine.ingest(handbook);
    const routes: RouteEvent[] = [];
    engine.on('route', (event) => routes.push(event));
    const summary = await engine.chat({
      message: 'Summarize the refund, shipping and account policies.',
    });
    const lookup = await engine.chat({ message: 'What is the refund policy?' });
    expect(routes.map((event) => event.route)).toEqual(['synthesis', 'retrieval']);
    const [synthesis, retrieval] = routes.map((event) => event.strategy!);
    expect(synthesis!.k).toBeGreaterThan(retrieval!.k);
    expect(synthesis).toMatchObject({ graphRerank: true, rerank: true });
    // The weighting is the ranking: fused ranks (vector and keyword, weighted), graph rerank
    // and the reranker order the sources, and the answer draws on several documents.
    expect(summary.sources.length).toBeGreaterThan(lookup.sources.length);
    expect(new Set(summary.sources.map((source) => source.documentId)).size).toBeGreaterThan(1);
  });
});
