import { describe, expect, it } from 'vitest';

import { createMemorySessionStore } from '../../../src/adapters/memory/session-store.js';
import { ConflictError } from '../../../src/errors/index.js';
import { findPreviousTurn, replayResponse } from '../../../src/pipeline/turn/idempotency.js';
import { scoreConfidence } from '../../../src/pipeline/score.js';
import type { MessageRecord, Source } from '../../../src/ports/chat-records.js';

let sequence = 0;
function message(
  role: MessageRecord['role'],
  content: string,
  extra: Partial<MessageRecord> = {},
): MessageRecord {
  sequence++;
  return {
    id: `m${String(sequence).padStart(4, '0')}`,
    sessionId: 's1',
    userId: 'u1',
    role,
    content,
    status: 'complete',
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, sequence)).toISOString(),
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    ...extra,
  };
}

const source: Source = {
  id: 'S1',
  chunkId: 'refunds#0',
  documentId: 'refunds',
  title: 'Refund policy',
  uri: null,
  snippet: 'Refunds are issued within 14 days.',
  score: 0.8,
  vectorScore: 0.4,
  keywordScore: 0.9,
  fusedScore: 0.5,
  type: 'hybrid',
  graphBoost: 1,
  learnedBoost: 1,
  graphContext: null,
  metadata: {},
};

async function store() {
  const sessions = createMemorySessionStore();
  await sessions.createSession({
    id: 's1',
    userId: 'u1',
    title: null,
    status: 'active',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    endedAt: null,
    trajectoryId: null,
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  });
  return sessions;
}

describe('findPreviousTurn', () => {
  it('reports a new key', async () => {
    const sessions = await store();
    await sessions.appendMessages('s1', [message('user', 'Hi', { requestId: 'other' })]);
    expect(await findPreviousTurn(sessions, { sessionId: 's1', requestId: 'key-1' })).toEqual({
      status: 'new',
    });
    expect(await findPreviousTurn(sessions, { sessionId: 'nope', requestId: 'key-1' })).toEqual({
      status: 'new',
    });
  });

  it('finds an answered turn and rebuilds its response', async () => {
    const sessions = await store();
    const user = message('user', 'How long do refunds take?', { requestId: 'key-1' });
    const confidence = scoreConfidence({ sources: [source] });
    const reply = message('assistant', 'Refunds are issued within 14 days [source: S1].', {
      replyTo: user.id,
      sources: [source],
      confidence,
      timings: { retrievalMs: 1, generationMs: 2, totalMs: 4 },
    });
    await sessions.appendMessages('s1', [user]);
    await sessions.appendMessages('s1', [message('user', 'unrelated'), reply]);

    const previous = await findPreviousTurn(sessions, {
      sessionId: 's1',
      requestId: 'key-1',
      message: 'How long do refunds take?',
    });
    expect(previous.status).toBe('answered');
    if (previous.status !== 'answered') return;
    const response = replayResponse(previous, { model: 'extractive-v1', turnNumber: 3 });
    expect(response).toEqual({
      grounding: null,
      recalled: [],
      turnNumber: 3,
      historyCompacted: false,
      messageId: reply.id,
      userMessageId: user.id,
      sessionId: 's1',
      text: reply.content,
      sources: [source],
      confidence,
      citations: { generatedIds: ['S1'], validIds: ['S1'], removed: [] },
      guard: false,
      refused: null,
      status: 'complete',
      ended: false,
      timings: { retrievalMs: 1, generationMs: 2, totalMs: 4 },
      usage: null,
      model: 'extractive-v1',
      createdAt: reply.createdAt,
    });
  });

  it('recomputes a missing confidence', async () => {
    const sessions = await store();
    const user = message('user', 'q', { requestId: 'k' });
    await sessions.appendMessages('s1', [
      user,
      message('assistant', 'a', { replyTo: user.id, sources: [source] }),
    ]);
    const previous = await findPreviousTurn(sessions, { sessionId: 's1', requestId: 'k' });
    if (previous.status !== 'answered') throw new Error('expected an answered turn');
    expect(replayResponse(previous, { model: 'm' }).confidence).toEqual(
      scoreConfidence({ sources: [source] }),
    );
  });

  it('asks for a re-run when the first attempt stored no answer or only a partial one', async () => {
    const sessions = await store();
    const failed = message('user', 'q1', { requestId: 'k1' });
    const broken = message('user', 'q2', { requestId: 'k2' });
    const partial = message('assistant', 'Refunds are', {
      replyTo: broken.id,
      status: 'incomplete',
    });
    await sessions.appendMessages('s1', [failed, broken, partial]);
    expect(await findPreviousTurn(sessions, { sessionId: 's1', requestId: 'k1' })).toEqual({
      status: 'unanswered',
      userMessage: failed,
      partial: null,
    });
    expect(await findPreviousTurn(sessions, { sessionId: 's1', requestId: 'k2' })).toEqual({
      status: 'unanswered',
      userMessage: broken,
      partial,
    });
    // Once the re-run answers, the key replays that answer.
    const answer = message('assistant', 'Refunds are issued within 14 days.', {
      replyTo: broken.id,
    });
    await sessions.appendMessages('s1', [answer]);
    const after = await findPreviousTurn(sessions, { sessionId: 's1', requestId: 'k2' });
    expect(after.status === 'answered' && after.reply.id).toBe(answer.id);
  });

  it('replays a degraded answer as it was', async () => {
    const sessions = await store();
    const user = message('user', 'q', { requestId: 'k' });
    await sessions.appendMessages('s1', [
      user,
      message('assistant', 'a', { replyTo: user.id, status: 'degraded' }),
    ]);
    const previous = await findPreviousTurn(sessions, { sessionId: 's1', requestId: 'k' });
    if (previous.status !== 'answered') throw new Error('expected an answered turn');
    expect(replayResponse(previous, { model: 'm' }).status).toBe('degraded');
  });

  it('rejects a key reused for a different message', async () => {
    const sessions = await store();
    await sessions.appendMessages('s1', [message('user', 'first text', { requestId: 'k' })]);
    await expect(
      findPreviousTurn(sessions, { sessionId: 's1', requestId: 'k', message: 'other text' }),
    ).rejects.toBeInstanceOf(ConflictError);
  });
});
