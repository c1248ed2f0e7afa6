/**
 * Seed 004 (data model): recalled messages are reported, in the response and as an event.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/engine.js';
import type { RecallEvent } from '../../src/events.js';

describe('seed 004: recalled messages are reported', () => {
  it('lists the recalled messages in the response and a recall event', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    const events: RecallEvent[] = [];
    engine.on('recall', (event) => events.push(event));
    const first = await engine.createSession({ userId: 'u' });
    const told = await engine.chat({
      sessionId: first.id,
      userId: 'u',
      message: 'My parcel tracking number is ZX-4711 and the parcel never arrived.',
    });
    await engine.flush();
    // A conversation without retrieval: nothing to refuse, the model answers from memory.
    const second = await engine.createSession({ userId: 'u', settings: { rag: false } });
    const reply = await engine.chat({
      sessionId: second.id,
      userId: 'u',
      message: 'What was my parcel tracking number?',
    });
    expect(reply.recalled.map((message) => message.messageId)).toContain(told.userMessageId);
    const recalled = reply.recalled.find((message) => message.messageId === told.userMessageId);
    expect(recalled).toMatchObject({ sessionId: first.id, role: 'user' });
    expect(recalled!.score).toBeGreaterThan(0);
    const event = events.at(-1)!;
    expect(event).toMatchObject({
      turnId: reply.messageId,
      sessionId: second.id,
      userId: 'u',
      enabled: true,
      scope: 'user',
    });
    expect(event.found).toBeGreaterThanOrEqual(1);
    expect(event.messageIds).toEqual(reply.recalled.map((message) => message.messageId));
    expect(event.contextTokens).toBeGreaterThan(0);
    // The first turn (no documents: guard mode answered before recall) did not recall.
    expect(events).toHaveLength(1);
  });

  it('reports nothing in query mode (no user to recall for)', async () => {
    const engine = createChatEngine();
    const reply = await engine.chat({ message: 'Hello, what is new?', mode: 'query' });
    expect(reply.recalled).toEqual([]);
  });
});
