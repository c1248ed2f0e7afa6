/**
 * Seed 004 (data model): recalled messages are reported, in the response and as an event
 * (also when recall failed).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { createChatEngine } from '../../src/engine.js';
import type { RecallEvent } from '../../src/events.js';
import { ConfigError } from '../../src/errors/index.js';
import { isQuestion } from '../../src/text/question-intent.js';
import { handbook } from '../fixtures/handbook.js';

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
    // The first turn (no documents: guard mode answered) recalled too, before the guard,
    // and found nothing.
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ found: 0, messageIds: [] });
  });

  it('reports a failed recall in the event, and the turn still answers', async () => {
    const store = createMemoryVectorStore();
    const engine = createChatEngine({
      vectorStore: {
        ...store,
        // Recall searches with the owner's filter; document retrieval does not.
        query: (namespace, vector, options) =>
          options?.filter !== undefined && 'userId' in options.filter
            ? Promise.reject(new Error('recall index unavailable'))
            : store.query(namespace, vector, options),
      },
      recall: { scope: 'user' },
    });
    const events: RecallEvent[] = [];
    const errors: unknown[] = [];
    engine.on('recall', (event) => events.push(event));
    engine.on('error', (event) => errors.push(event.error));
    const session = await engine.createSession({ userId: 'u', settings: { rag: false } });
    const reply = await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'Remember me?',
    });
    expect(reply.status).toBe('complete');
    expect(events.at(-1)).toMatchObject({ enabled: true, failed: true, found: 0 });
    expect(errors.some((error) => String(error).includes('recall index unavailable'))).toBe(true);
    const fine = createChatEngine({ recall: { scope: 'user' } });
    const ok: RecallEvent[] = [];
    fine.on('recall', (event) => ok.push(event));
    const other = await fine.createSession({ userId: 'u', settings: { rag: false } });
    await fine.chat({ sessionId: other.id, userId: 'u', message: 'Remember me?' });
    expect(ok.at(-1)).toMatchObject({ failed: false });
  });

  it('reports nothing in query mode (no user to recall for)', async () => {
    const engine = createChatEngine();
    const reply = await engine.chat({ message: 'Hello, what is new?', mode: 'query' });
    expect(reply.recalled).toEqual([]);
  });
});

describe('seed 004: recall options range', () => {
  it('accepts 100–4000 recall tokens and refuses outside it, naming recall.maxTokens', () => {
    expect(createChatEngine().config.recall.maxTokens).toBe(1000);
    for (const maxTokens of [100, 2000, 4000]) {
      expect(createChatEngine({ recall: { maxTokens } }).config.recall.maxTokens).toBe(maxTokens);
    }
    for (const maxTokens of [50, 99, 4001, 5000, 1.5, -1, Number.NaN, 1e12]) {
      let error: unknown;
      try {
        createChatEngine({ recall: { maxTokens } });
      } catch (caught) {
        error = caught;
      }
      expect(ConfigError.isInstance(error), String(maxTokens)).toBe(true);
      expect((error as ConfigError).issues[0]?.path).toBe('recall.maxTokens');
    }
  });

  it('refuses maxMessages outside 1–10', () => {
    for (const maxMessages of [0, 11]) {
      expect(() => createChatEngine({ recall: { maxMessages } })).toThrow(ConfigError);
    }
  });
});

describe('seed 004: RAG log events', () => {
  /** Every recall-family event of a turn, in order, with its payload. */
  function record(engine: ReturnType<typeof createChatEngine>) {
    const seen: [string, RecallEvent][] = [];
    for (const name of ['recall', 'recall.built', 'recall.failed', 'recall.disabled'] as const) {
      engine.on(name, (event) => seen.push([name, event]));
    }
    return seen;
  }

  it('recall.built after recall, with contextLength the characters of the recalled text', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    const first = await engine.createSession({ userId: 'u' });
    const said = 'My locker code is 5521 and my locker is number 12.';
    await engine.chat({ sessionId: first.id, userId: 'u', message: said });
    await engine.flush();
    const seen = record(engine);
    const second = await engine.createSession({ userId: 'u', settings: { rag: false } });
    await engine.chat({ sessionId: second.id, userId: 'u', message: 'What is my locker code?' });
    expect(seen.map(([name]) => name)).toEqual(['recall', 'recall.built']);
    const [, event] = seen[0]!;
    expect(seen[1]![1]).toEqual(event);
    expect(event.messageIds.length).toBeGreaterThan(0);
    const history = await engine.history({ sessionId: first.id, userId: 'u' });
    const texts = new Map(history.messages.map((message) => [message.id, message.content]));
    const expected = event.messageIds.reduce((sum, id) => sum + (texts.get(id)?.length ?? 0), 0);
    expect(event.contextLength).toBe(expected);
    expect(event.contextLength).toBeGreaterThanOrEqual(said.length);
  });

  it('recall.disabled when recall is off, recall.failed when the search fails', async () => {
    const off = createChatEngine({ recall: { enabled: false } });
    const seenOff = record(off);
    const session = await off.createSession({ userId: 'u', settings: { rag: false } });
    await off.chat({ sessionId: session.id, userId: 'u', message: 'Remember me?' });
    expect(seenOff.map(([name]) => name)).toEqual(['recall', 'recall.disabled']);
    expect(seenOff[1]![1]).toMatchObject({ enabled: false, found: 0, contextLength: 0 });

    const store = createMemoryVectorStore();
    const failing = createChatEngine({
      vectorStore: {
        ...store,
        query: (namespace, vector, options) =>
          options?.filter !== undefined && 'userId' in options.filter
            ? Promise.reject(new Error('recall index unavailable'))
            : store.query(namespace, vector, options),
      },
    });
    failing.on('error', () => undefined);
    const seenFailing = record(failing);
    const other = await failing.createSession({ userId: 'u', settings: { rag: false } });
    await failing.chat({ sessionId: other.id, userId: 'u', message: 'Remember me?' });
    expect(seenFailing.map(([name]) => name)).toEqual(['recall', 'recall.failed']);
    expect(seenFailing[1]![1]).toMatchObject({ failed: true, contextLength: 0 });
  });
});

describe('seed 004: recall does not depend on the document guard', () => {
  it('answers from the user’s own earlier statement, citing it, when no document matches', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    await engine.ingest([
      { id: 'refunds', title: 'Refund policy', text: 'Refunds are issued within 14 days.' },
    ]);
    const first = await engine.createSession({ userId: 'u' });
    const told = await engine.chat({
      sessionId: first.id,
      userId: 'u',
      message: 'My bicycle serial number is QX-7781 and it is dark green',
    });
    await engine.flush();
    const guards: unknown[] = [];
    engine.on('guard', (event) => guards.push(event));
    const second = await engine.createSession({ userId: 'u' });
    const reply = await engine.chat({
      sessionId: second.id,
      userId: 'u',
      message: 'What was my bicycle serial number and colour?',
    });
    expect(reply.guard).toBe(false);
    expect(guards).toEqual([]);
    expect(reply.text).toContain('QX-7781');
    expect(reply.text).toContain('[source: S1]');
    expect(reply.sources).toHaveLength(1);
    expect(reply.sources[0]).toMatchObject({
      chunkId: told.userMessageId,
      documentId: `message:${told.userMessageId}`,
      metadata: { recalled: true, sessionId: first.id, role: 'user' },
    });
    expect(reply.recalled.map((message) => message.messageId)).toContain(told.userMessageId);
    expect(reply.confidence.overall).toBeGreaterThan(0);
  });

  it('still refuses when neither documents nor the user’s statements answer', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    await engine.ingest([
      { id: 'refunds', title: 'Refund policy', text: 'Refunds are issued within 14 days.' },
    ]);
    const first = await engine.createSession({ userId: 'u' });
    await engine.chat({
      sessionId: first.id,
      userId: 'u',
      message: 'My bicycle serial number is QX-7781 and it is dark green',
    });
    await engine.flush();
    const events: RecallEvent[] = [];
    engine.on('recall', (event) => events.push(event));
    const second = await engine.createSession({ userId: 'u' });
    const reply = await engine.chat({
      sessionId: second.id,
      userId: 'u',
      message: 'How do I bake sourdough bread at home?',
    });
    expect(reply.guard).toBe(true);
    expect(reply.sources).toEqual([]);
    // Recall ran before the guard and reported, with nothing reaching a prompt.
    expect(events).toHaveLength(1);
    expect(events[0]!.messageIds).toEqual([]);
  });

  it('never answers from another user’s statement', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    const mine = await engine.createSession({ userId: 'alice' });
    await engine.chat({
      sessionId: mine.id,
      userId: 'alice',
      message: 'My bicycle serial number is QX-7781 and it is dark green',
    });
    await engine.flush();
    const theirs = await engine.createSession({ userId: 'mallory' });
    const reply = await engine.chat({
      sessionId: theirs.id,
      userId: 'mallory',
      message: 'What was my bicycle serial number and colour?',
    });
    expect(reply.guard).toBe(true);
    expect(reply.text).not.toContain('QX-7781');
  });
});

describe('seed 004: the guard judges documents and the user’s statements together', () => {
  it('an earlier question never answers a later one', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    const first = await engine.createSession({ userId: 'u' });
    const asked = await engine.chat({
      sessionId: first.id,
      userId: 'u',
      message: 'What was my bicycle serial number and colour?',
    });
    await engine.flush();
    const events: RecallEvent[] = [];
    engine.on('recall', (event) => events.push(event));
    const second = await engine.createSession({ userId: 'u' });
    const reply = await engine.chat({
      sessionId: second.id,
      userId: 'u',
      message: 'What was my bicycle serial number and colour?',
    });
    // Recalled (it is similar), but a question states nothing: the guard still refuses.
    expect(events.at(-1)?.found).toBeGreaterThanOrEqual(1);
    expect(reply.recalled).toEqual([]);
    expect(reply.guard).toBe(true);
    expect(reply.sources).toEqual([]);
    expect(asked.guard).toBe(true);
  });

  it('a statement stronger than the documents comes first, the documents after it', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    await engine.ingest(handbook);
    const first = await engine.createSession({ userId: 'u' });
    const told = await engine.chat({
      sessionId: first.id,
      userId: 'u',
      message: 'My refund reference number is RF-5567 for the broken kettle',
    });
    await engine.flush();
    const second = await engine.createSession({ userId: 'u' });
    const reply = await engine.chat({
      sessionId: second.id,
      userId: 'u',
      message: 'What is my refund reference number for the kettle?',
    });
    expect(reply.guard).toBe(false);
    expect(reply.sources[0]).toMatchObject({ chunkId: told.userMessageId });
    expect(reply.sources.slice(1).some((source) => source.documentId === 'refunds')).toBe(true);
    expect(reply.text).toContain('RF-5567');
  });

  it('a document question keeps the documents as its only sources', async () => {
    const engine = createChatEngine({ recall: { scope: 'user' } });
    await engine.ingest(handbook);
    const first = await engine.createSession({ userId: 'u' });
    await engine.chat({ sessionId: first.id, userId: 'u', message: 'I bought a kettle last week' });
    await engine.flush();
    const second = await engine.createSession({ userId: 'u' });
    const reply = await engine.chat({
      sessionId: second.id,
      userId: 'u',
      message: 'What is the refund policy?',
    });
    expect(reply.sources.length).toBeGreaterThan(0);
    expect(reply.sources.every((source) => source.metadata['recalled'] !== true)).toBe(true);
  });

  it('tells questions from statements', () => {
    for (const text of [
      'What is my code?',
      'where is it',
      'Is it green',
      'Wann ist das？',
      ' How? ',
    ]) {
      expect(isQuestion(text), text).toBe(true);
    }
    for (const text of ['My code is 5521', 'It is green.', 'Whatever happens, I pay 5 euros']) {
      expect(isQuestion(text), text).toBe(false);
    }
  });
});

describe('seed 004: a statement still in the conversation’s recent history is evidence too', () => {
  it('answers a question about a statement made earlier in the same conversation', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const session = await engine.createSession({ userId: 'u' });
    const told = await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'My bicycle serial number is QX-7781 and it is dark green',
    });
    expect(told.guard).toBe(true);
    const reply = await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'What was my bicycle serial number and colour?',
    });
    expect(reply.guard).toBe(false);
    expect(reply.text).toContain('QX-7781');
    expect(reply.sources[0]).toMatchObject({
      chunkId: told.userMessageId,
      metadata: { recalled: true },
      // judged on its words alone: never searched by vector
      vectorScore: null,
    });
    // An unrelated question in the same conversation is still refused.
    const other = await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'How do I bake sourdough bread at home?',
    });
    expect(other.guard).toBe(true);
  });
});
