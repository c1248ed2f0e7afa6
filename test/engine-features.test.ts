import { describe, expect, it, vi } from 'vitest';
import {
  createChatEngine,
  createMemorySessionStore,
  DEFAULT_GUARD_ANSWER,
  RateLimitError,
  type ChatStreamPart,
} from '../src/index.js';
import { createMockLLM } from '../src/testing/index.js';
import { handbook } from './fixtures/handbook.js';

async function engineWith(config: Parameters<typeof createChatEngine>[0] = {}) {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  return engine;
}

describe('small talk', () => {
  it('answers greetings and thanks without retrieval, guard mode or a model call', async () => {
    const llm = createMockLLM({ responses: 'not used' });
    const engine = await engineWith({ llm });
    const guard = vi.fn();
    const retrieval = vi.fn();
    const routes: string[] = [];
    engine.on('guard', guard);
    engine.on('retrieval', retrieval);
    engine.on('route', (event) => routes.push(event.route));
    const session = await engine.createSession({ userId: 'u1' });
    for (const message of ['hi!', 'Thanks a lot', 'good morning']) {
      const reply = await engine.chat({ sessionId: session.id, message });
      expect(reply.guard).toBe(false);
      expect(reply.sources).toEqual([]);
      expect(reply.text.length).toBeGreaterThan(0);
    }
    expect(routes).toEqual(['small-talk', 'small-talk', 'small-talk']);
    expect(guard).not.toHaveBeenCalled();
    expect(retrieval).not.toHaveBeenCalled();
    expect(llm.calls).toHaveLength(0);
    // Nothing to learn from: no trajectory is begun for small talk.
    expect(
      (await engine.getSession({ sessionId: session.id, userId: 'u1' })).trajectoryId,
    ).toBeNull();
    const real = await engine.chat({
      sessionId: session.id,
      message: 'hi, what is the refund policy?',
    });
    expect(real.sources.length).toBeGreaterThan(0);
  });
});

describe('grounding judge', () => {
  const answer =
    'Refunds are issued within 14 days of the request [source: S1]. Refunds are paid in gold bars on the moon [source: S1].';

  it('annotates every cited claim with a verdict and evidence span (default policy)', async () => {
    const engine = await engineWith({ llm: createMockLLM({ responses: answer }) });
    const judged = vi.fn();
    engine.on('judge', judged);
    const reply = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    expect(reply.text).toBe(answer);
    const claims = reply.grounding!.claims;
    expect(claims.map((claim) => claim.verdict)).toEqual(['supported', 'not_enough_info']);
    const evidence = claims[0]!.evidence!;
    expect(evidence.sourceId).toBe('S1');
    expect(evidence.text).toMatch(/14 days/);
    expect(reply.grounding!.supportedRatio).toBe(0.5);
    expect(judged).toHaveBeenCalledOnce();
  });

  it('removes unsupported sentences with policy remove — the stream part and done carry the final text', async () => {
    const engine = await engineWith({
      llm: createMockLLM({ responses: answer }),
      judge: { policy: 'remove' },
    });
    const parts: ChatStreamPart[] = [];
    const stream = engine.stream({ message: 'What is the refund policy?', mode: 'query' });
    for await (const part of stream) parts.push(part);
    const streamed = parts
      .flatMap((part) => (part.type === 'text-delta' ? [part.text] : []))
      .join('');
    const grounding = parts.find((part) => part.type === 'grounding');
    const response = await stream.response;
    expect(streamed).toBe(answer);
    expect(response.text).toBe('Refunds are issued within 14 days of the request [source: S1].');
    expect(grounding).toMatchObject({ text: response.text, blocked: false });
    expect(parts.map((part) => part.type).slice(-4)).toEqual([
      'grounding',
      'citations',
      'confidence',
      'done',
    ]);
  });

  it('blocks a mostly unsupported answer with the guard answer (policy block, per session)', async () => {
    const invented =
      'Refunds are paid in gold bars on the moon [source: S1]. Cats approve every refund [source: S2].';
    const store = createMemorySessionStore();
    const engine = await engineWith({
      llm: createMockLLM({ responses: invented }),
      sessionStore: store,
    });
    const guard = vi.fn();
    engine.on('guard', guard);
    const session = await engine.createSession({
      userId: 'u1',
      settings: { judgePolicy: 'block' },
    });
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    expect(reply.text).toBe(DEFAULT_GUARD_ANSWER);
    expect(reply.guard).toBe(true);
    expect(reply.sources).toEqual([]);
    expect(guard).toHaveBeenCalledWith(expect.objectContaining({ reason: 'judge' }));
    const stored = await store.listMessages(session.id);
    expect(stored[1]).toMatchObject({
      role: 'assistant',
      content: DEFAULT_GUARD_ANSWER,
      guard: true,
    });
  });

  it('uses the supported ratio as the certainty factor when the model gives none', async () => {
    const engine = await engineWith({ llm: createMockLLM({ responses: answer }) });
    const reply = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    expect(reply.confidence.llmCertainty).toBe(0.5);
  });
});

describe('conversation memory', () => {
  it('compacts long histories into a summary, keeping the originals in history', async () => {
    const store = createMemorySessionStore();
    const engine = await engineWith({ sessionStore: store, compaction: { profile: 'compact' } });
    const summaries: { replacedCount: number; summaryId: string }[] = [];
    engine.on('summary', (event) => summaries.push(event));
    const session = await engine.createSession({ userId: 'u1' });
    const questions = [
      'What is the refund policy?',
      'How long does shipping take?',
      'What does express shipping cost?',
      'How long must passwords be?',
      'Can I turn on two-factor authentication?',
      'What happens when I delete my account?',
      'Are gift cards refunded?',
      'Where is the warehouse?',
    ];
    for (const message of questions) await engine.chat({ sessionId: session.id, message });
    await engine.flush();
    expect(summaries.length).toBeGreaterThan(0);
    const all = await store.listMessages(session.id);
    const summary = all.find((message) => message.role === 'system-summary')!;
    expect(summary.covers!.length).toBe(summaries[0]!.replacedCount);
    const covered = all.filter((message) => message.coveredBy);
    expect(covered.length).toBeGreaterThan(0);
    // The last two user messages are never summarised.
    const users = all.filter((message) => message.role === 'user');
    expect(users.slice(-2).every((message) => !message.coveredBy)).toBe(true);
    // Originals stay visible in history.
    const history = await engine.history({ sessionId: session.id, userId: 'u1', limit: 100 });
    expect(history.messages.filter((message) => message.role === 'user')).toHaveLength(
      questions.length,
    );
  });

  it('rewrites a follow-up into a standalone query and reports it', async () => {
    const engine = await engineWith();
    const queries: { query: string; rewritten?: boolean | undefined }[] = [];
    engine.on('retrieval', (event) => queries.push(event));
    const session = await engine.createSession({ userId: 'u1' });
    await engine.chat({ sessionId: session.id, message: 'Do you ship internationally?' });
    const reply = await engine.chat({ sessionId: session.id, message: 'How long does that take?' });
    expect(queries[1]).toMatchObject({ rewritten: true });
    expect(queries[1]!.query).toMatch(/ship/i);
    expect(reply.sources[0]?.documentId).toBe('shipping');
  });

  it('asks the model to rewrite a follow-up only when its metadata says it follows instructions', async () => {
    const callsFor = async (followsInstructions: boolean | undefined) => {
      const llm = createMockLLM({
        responses: 'Shipping takes 5 days [source: S1].',
        metadata: followsInstructions === undefined ? {} : { followsInstructions },
      });
      const engine = await engineWith({ llm, retrieval: { minSimilarity: 0 } });
      const session = await engine.createSession({ userId: 'u1' });
      await engine.chat({ sessionId: session.id, message: 'Do you ship internationally?' });
      await engine.chat({ sessionId: session.id, message: 'How long does that take?' });
      return llm.calls.length;
    };
    // Two answers; a model that follows instructions also condenses the follow-up.
    expect(await callsFor(false)).toBe(2);
    expect(await callsFor(undefined)).toBe(3);
    expect(await callsFor(true)).toBe(3);
  });

  it('never recalls another user’s messages', async () => {
    const llm = createMockLLM({ responses: 'Noted [source: S1].' });
    const engine = await engineWith({
      llm,
      recall: { minSimilarity: 0, scope: 'user' },
      retrieval: { minSimilarity: 0 },
    });
    const alice = await engine.createSession({ userId: 'alice' });
    await engine.chat({
      sessionId: alice.id,
      message: 'My secret project is called Bluebird and concerns refunds.',
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const bob = await engine.createSession({ userId: 'bob' });
    await engine.chat({ sessionId: bob.id, message: 'Tell me about Bluebird refunds' });
    const prompt = JSON.stringify(llm.calls.at(-1)!.request);
    expect(prompt).not.toContain('secret project');
    const alice2 = await engine.createSession({ userId: 'alice' });
    await engine.chat({ sessionId: alice2.id, message: 'Tell me about Bluebird refunds' });
    expect(JSON.stringify(llm.calls.at(-1)!.request)).toContain('secret project');
  });

  it('returns the first answer for a retried message id instead of a second turn', async () => {
    const store = createMemorySessionStore();
    const llm = createMockLLM({
      responses: ['First answer [source: S1].', 'Second answer [source: S1].'],
    });
    const engine = await engineWith({ llm, sessionStore: store });
    const session = await engine.createSession({ userId: 'u1' });
    const request = {
      sessionId: session.id,
      message: 'What is the refund policy?',
      messageId: 'client-42',
    };
    const first = await engine.chat(request);
    const retried = await engine.chat(request);
    expect(retried.text).toBe(first.text);
    expect(retried.messageId).toBe(first.messageId);
    expect(llm.calls).toHaveLength(1);
    expect(await store.countMessages(session.id)).toBe(2);
  });
});

describe('rate limiting', () => {
  it('is off by default and, when enabled, refuses before anything is stored', async () => {
    const store = createMemorySessionStore();
    const engine = await engineWith({
      sessionStore: store,
      rateLimit: { enabled: true, limit: 2, windowMs: 60_000, flood: { enabled: false } },
    });
    const limited = vi.fn();
    engine.on('rateLimit', limited);
    const session = await engine.createSession({ userId: 'u1' });
    await engine.chat({
      sessionId: session.id,
      userId: 'u1',
      message: 'What is the refund policy?',
    });
    await engine.chat({
      sessionId: session.id,
      userId: 'u1',
      message: 'How long does shipping take?',
    });
    const error = await engine
      .chat({ sessionId: session.id, userId: 'u1', message: 'And express?' })
      .catch((caught: unknown) => caught);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    expect(limited).toHaveBeenCalledWith(
      expect.objectContaining({ scope: 'engine', reason: 'window' }),
    );
    expect(await store.countMessages(session.id)).toBe(4);
    const unlimited = await engineWith();
    for (let index = 0; index < 5; index++)
      await unlimited.chat({ message: 'hello there, refunds?', mode: 'query' });
  });
});

describe('routing and the knowledge graph', () => {
  it('reports the intent and strategy, and relational questions get graph support', async () => {
    const engine = await engineWith();
    const routes: { route: string; confidence: number }[] = [];
    engine.on('route', (event) => routes.push(event));
    await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    await engine.chat({ message: 'How are refunds related to deleted accounts?', mode: 'query' });
    expect(routes[0]!.route).toBe('retrieval');
    expect(routes[1]!.route).toBe('relational');
    expect(routes[1]!.confidence).toBeGreaterThan(0);
    const deep = await engine.search('How are refunds related to deleted accounts?', {
      searchDepth: 'deep',
      k: 5,
    });
    expect(deep.length).toBeGreaterThan(0);
    expect(deep.some((source) => source.graphContext !== null)).toBe(true);
  });
});
