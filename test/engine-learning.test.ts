import { describe, expect, it, vi } from 'vitest';
import {
  createChatEngine,
  createMemoryGraphStore,
  createMemoryLearningSink,
  NotFoundError,
  ValidationError,
} from '../src/index.js';
import { createChatHandler } from '../src/http/index.js';
import { createMockLLM } from '../src/testing/index.js';
import { handbook } from './fixtures/handbook.js';

async function setup(config: Parameters<typeof createChatEngine>[0] = {}) {
  const learningSink = createMemoryLearningSink();
  const engine = createChatEngine({ learningSink, ...config });
  await engine.ingest(handbook);
  const session = await engine.createSession({ userId: 'u1' });
  return { engine, learningSink, session };
}

describe('engine.feedback', () => {
  it('stores the feedback, turns it into the step reward and emits an event', async () => {
    const { engine, learningSink, session } = await setup();
    const events: unknown[] = [];
    engine.on('feedback', (event) => events.push(event));
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    const feedback = await engine.feedback({
      messageId: reply.messageId,
      userId: 'u1',
      rating: 'good',
      sourceHelpfulness: { S1: 1 },
      comment: 'clear',
    });
    // 0.7 × 1 + 0.3 × (1 − 0.5)
    expect(feedback.reward).toBeCloseTo(0.85, 10);
    const trajectoryId = (await engine.getSession({ sessionId: session.id, userId: 'u1' }))
      .trajectoryId!;
    const [step] = await learningSink.listSteps(trajectoryId);
    expect(step!.reward).toBeCloseTo(0.85, 10);
    expect(events).toEqual([
      expect.objectContaining({ messageId: reply.messageId, rating: 'good' }),
    ]);
    const history = await engine.history({
      sessionId: session.id,
      userId: 'u1',
      includeFeedback: true,
    });
    expect(history.feedback?.map((record) => record.messageId)).toEqual([reply.messageId]);
  });

  it('is only accepted from the message’s owner, on an answer, naming real sources', async () => {
    const { engine, session } = await setup();
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    await expect(
      engine.feedback({ messageId: reply.messageId, userId: 'mallory', rating: 'bad' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      engine.feedback({ messageId: reply.userMessageId!, userId: 'u1', rating: 'bad' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      engine.feedback({
        messageId: reply.messageId,
        userId: 'u1',
        rating: 'good',
        sourceHelpfulness: { S9: 1 },
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      engine.feedback({ messageId: reply.messageId, userId: 'u1', rating: 'great' as never }),
    ).rejects.toMatchObject({ issues: [{ path: 'rating' }] });
  });

  it('ranks a source marked helpful higher for the same question next time', async () => {
    const { engine, session } = await setup();
    const question = 'How long does shipping take and what does it cost?';
    const before = await engine.search(question, { k: 5 });
    const reply = await engine.chat({ sessionId: session.id, message: question, topK: 5 });
    const target = reply.sources.at(-1)!;
    await engine.feedback({
      messageId: reply.messageId,
      userId: 'u1',
      rating: 'good',
      sourceHelpfulness: { [target.id]: 1, [reply.sources[0]!.id]: 0 },
    });
    const after = await engine.search(question, { k: 5 });
    const rank = (sources: typeof before) =>
      sources.findIndex((source) => source.chunkId === target.chunkId);
    expect(rank(after)).toBeLessThan(rank(before) < 0 ? Infinity : rank(before));
    expect(after.find((source) => source.chunkId === target.chunkId)!.learnedBoost).toBeGreaterThan(
      1,
    );
    // An unrelated question is not affected.
    const other = await engine.search('How long must passwords be?', { k: 5 });
    expect(other.every((source) => source.learnedBoost === 1)).toBe(true);
  });

  it('can ingest a correction as a document derived from the corrected message', async () => {
    const graphStore = createMemoryGraphStore();
    const { engine, session } = await setup({
      graphStore,
      llm: createMockLLM({ responses: 'Refunds take 90 days [source: S1].' }),
    });
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'How long do refunds take?',
    });
    await engine.feedback({
      messageId: reply.messageId,
      userId: 'u1',
      rating: 'bad',
      markedAsFactual: false,
      correctedContent: 'Refunds take 14 days, never 90 days.',
      ingestCorrection: true,
    });
    const found = await engine.search('refunds never 90 days', { k: 3, userId: 'u1' });
    expect(found[0]?.documentId).toBe(`correction:${reply.messageId}`);
    const links = await graphStore.neighbors('default', `document:correction:${reply.messageId}`, {
      depth: 1,
      edgeTypes: ['DERIVED_FROM'],
      direction: 'out',
    });
    expect(links.map((link) => link.node.id)).toContain(`message:${reply.messageId}`);
  });

  it('ends an idle trajectory as abandoned and begins a new one', async () => {
    const { engine, learningSink, session } = await setup({ learning: { idleTimeoutMs: 60_000 } });
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);
    await engine.chat({ sessionId: session.id, message: 'What is the refund policy?' });
    const first = (await engine.getSession({ sessionId: session.id, userId: 'u1' })).trajectoryId!;
    clock.mockReturnValue(now + 2 * 60 * 60_000);
    await engine.chat({ sessionId: session.id, message: 'How long does shipping take?' });
    clock.mockRestore();
    const second = (await engine.getSession({ sessionId: session.id, userId: 'u1' })).trajectoryId!;
    expect(second).not.toBe(first);
    expect((await learningSink.getTrajectory(first))!.status).toBe('abandoned');
  });
});

describe('POST /messages/:id/feedback', () => {
  it('records the caller’s feedback, 404s for another user, refuses ingesting corrections', async () => {
    const { engine, session } = await setup();
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    const as = (user: string) =>
      createChatHandler(engine, { authenticate: () => ({ id: user }), rateLimiter: false });
    const post = (user: string, body: unknown) =>
      as(user)(
        new Request(`http://x/messages/${reply.messageId}/feedback`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const ok = await post('u1', { rating: 'good', sourceHelpfulness: { S1: 1 } });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({
      feedback: { rating: 'good', messageId: reply.messageId },
    });
    expect((await post('mallory', { rating: 'bad' })).status).toBe(404);
    const refused = await post('u1', {
      rating: 'bad',
      correctedContent: 'x',
      ingestCorrection: true,
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ issues: [{ path: 'ingestCorrection' }] });
  });
});

describe('learned boost across restarts', () => {
  it('is rebuilt from the feedback a SQLite sink stored', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createSqliteStores } = await import('../src/adapters/sqlite/index.js');
    const path = join(await mkdtemp(join(tmpdir(), 'cortexis-learning-')), 'chat.db');
    const question = 'How long does shipping take and what does it cost?';

    const first = await createSqliteStores({ path, synchronous: 'normal' });
    const engineA = createChatEngine({
      sessionStore: first.sessionStore,
      learningSink: first.learningSink,
    });
    await engineA.ingest(handbook);
    const session = await engineA.createSession({ userId: 'u1' });
    const reply = await engineA.chat({ sessionId: session.id, message: question, topK: 5 });
    const target = reply.sources.at(-1)!;
    await engineA.feedback({
      messageId: reply.messageId,
      userId: 'u1',
      rating: 'good',
      sourceHelpfulness: { [target.id]: 1 },
    });
    first.close();

    const second = await createSqliteStores({ path, synchronous: 'normal' });
    const engineB = createChatEngine({
      sessionStore: second.sessionStore,
      learningSink: second.learningSink,
    });
    await engineB.ingest(handbook);
    await engineB.flush();
    const found = await engineB.search(question, { k: 5 });
    expect(found.find((source) => source.chunkId === target.chunkId)?.learnedBoost).toBeGreaterThan(
      1,
    );
    second.close();
  });
});
