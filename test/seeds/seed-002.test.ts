/**
 * Seed 002 (chat workflow): the history algorithm and citation validation, as a turn runs them.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/engine.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { handbook } from '../fixtures/handbook.js';

describe('seed 002: history.messages caps the recent messages sent with a turn', () => {
  it.each([
    [2, 2],
    [0, 0],
    [10, 6],
  ])('history.messages %i sends %i earlier messages after 3 turns', async (cap, expected) => {
    const llm = createMockLLM({ responses: 'Noted.' });
    const engine = createChatEngine({
      llm,
      history: { messages: cap },
      recall: { enabled: false },
      rewrite: { enabled: false },
    });
    // Plain chat (no retrieval): every turn calls the model with its history.
    const session = await engine.createSession({ userId: 'u', settings: { rag: false } });
    for (const message of ['Hello there, I have a question', 'About my order 1', 'And order 2']) {
      await engine.chat({ sessionId: session.id, userId: 'u', message });
    }
    await engine.chat({ sessionId: session.id, userId: 'u', message: 'And order 3' });
    const last = llm.calls.at(-1)!.request.messages;
    // The earlier messages, the sources (a user message), then the question itself.
    expect(last.length - 2).toBe(expected);
    expect(last.at(-2)?.content).toContain('<sources>');
    expect(last.at(-1)?.content).toBe('And order 3');
  });
});

describe('seed 002: a citation naming a chunk id cites its label', () => {
  it('rewrites [source: <chunk id>] to the source label and removes unknown ids', async () => {
    let cited = '';
    const engine = createChatEngine({
      llm: createMockLLM({
        responses: () => `Refunds take 14 days [source: ${cited}]. Other [source: nowhere#9].`,
      }),
    });
    await engine.ingest(handbook);
    const question = 'How long do refunds take?';
    const [top] = await engine.search(question);
    cited = top!.chunkId.toUpperCase(); // any case
    const reply = await engine.chat({ message: question, mode: 'query' });
    const label = reply.sources.find((source) => source.chunkId === top!.chunkId)?.id;
    expect(label).toBeDefined();
    expect(reply.text.startsWith(`Refunds take 14 days [source: ${label}]. Other.`)).toBe(true);
    expect(reply.citations.validIds).toEqual([label]);
    expect(reply.citations.removed).toEqual(['nowhere#9']);
  });
});

describe('seed 002 logging schema: turn events carry the conversation', () => {
  it('route, retrieval, citations, confidence, judge and metrics name the session', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const seen: Record<string, unknown> = {};
    for (const name of [
      'route',
      'retrieval',
      'citations',
      'confidence',
      'judge',
      'metrics',
      'recall',
    ] as const) {
      engine.on(name, (event) => {
        seen[name] = (event as { sessionId?: unknown }).sessionId;
      });
    }
    const session = await engine.createSession({ userId: 'u' });
    await engine.chat({ sessionId: session.id, userId: 'u', message: 'How long do refunds take?' });
    expect(seen).toEqual({
      route: session.id,
      retrieval: session.id,
      citations: session.id,
      confidence: session.id,
      judge: session.id,
      metrics: session.id,
      recall: session.id,
    });
    await engine.chat({ message: 'How long do refunds take?', mode: 'query' });
    expect(seen.route).toBeNull();
    expect(seen.citations).toBeNull();
  });
});

describe('seed 002: a turn maps a cited chunk id to its label', () => {
  it('[source: refunds#0] comes back as the label of that source', async () => {
    const engine = createChatEngine({
      llm: createMockLLM({ responses: 'Refunds take 14 days [source: refunds#0].' }),
    });
    await engine.ingest(handbook);
    const reply = await engine.chat({ message: 'What is the refund policy?' });
    const source = reply.sources.find((candidate) => candidate.chunkId === 'refunds#0');
    expect(source).toBeDefined();
    expect(reply.text).toBe(`Refunds take 14 days [source: ${source!.id}].`);
    expect(reply.citations.validIds).toEqual([source!.id]);
  });
});
