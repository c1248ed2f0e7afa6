import { describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  ConflictError,
  createChatEngine,
  createMemorySessionStore,
  DEFAULT_GUARD_ANSWER,
  NotFoundError,
  ValidationError,
  type ChatStreamPart,
  type LLMProvider,
} from '../src/index.js';
import { createMockLLM } from '../src/testing/index.js';
import { handbook } from './fixtures/handbook.js';

async function engineWithDocs(config: Parameters<typeof createChatEngine>[0] = {}) {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  return engine;
}

describe('createChatEngine: the opening example of DESIGN.md', () => {
  it('answers from ingested documents with validated citations and confidence, offline', async () => {
    const engine = await engineWithDocs();
    const session = await engine.createSession({ userId: 'u1' });
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    expect(reply.guard).toBe(false);
    expect(reply.text).toMatch(/14 days/);
    expect(reply.text).toMatch(/\[source: S\d\]/);
    expect(reply.sources[0]).toMatchObject({
      id: 'S1',
      documentId: 'refunds',
      title: 'Refund policy',
    });
    for (const id of reply.citations.validIds) {
      expect(reply.sources.map((source) => source.id)).toContain(id);
    }
    expect(reply.confidence.overall).toBeGreaterThan(0);
    expect(['low', 'medium', 'high']).toContain(reply.confidence.level);

    const parts: ChatStreamPart[] = [];
    const stream = engine.stream({ sessionId: session.id, message: 'And for digital goods?' });
    for await (const part of stream) parts.push(part);
    const types = parts.map((part) => part.type);
    expect(types.indexOf('sources')).toBeLessThan(types.indexOf('text-delta'));
    expect(types.at(-1)).toBe('done');
    const deltas = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));
    const response = await stream.response;
    expect(deltas.join('')).toBe(response.text);
    expect(await stream.text).toBe(response.text);
    expect(response.text).toMatch(/downloaded/);
  });
});

describe('guard mode', () => {
  it('answers honestly without calling the model when nothing relevant is found', async () => {
    const llm = createMockLLM({ responses: 'should not be called' });
    const engine = await engineWithDocs({ llm });
    const guard = vi.fn();
    engine.on('guard', guard);
    const reply = await engine.chat({
      message: 'How do I bake sourdough bread at home?',
      mode: 'query',
    });
    expect(reply.guard).toBe(true);
    expect(reply.text).toBe(DEFAULT_GUARD_ANSWER);
    expect(reply.sources).toEqual([]);
    expect(reply.confidence.level).toBe('low');
    expect(llm.calls).toHaveLength(0);
    expect(guard).toHaveBeenCalledOnce();
  });
});

describe('citations', () => {
  it('removes tags naming no retrieved source, in chat and in stream, and reports them', async () => {
    const answer = 'Refunds take 14 days [source: S1]. Invented [source: S42].';
    const engine = await engineWithDocs({ llm: createMockLLM({ responses: answer }) });
    const events: unknown[] = [];
    engine.on('citations', (event) => events.push(event));
    const reply = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    // The spec's note tells the reader a citation was removed.
    expect(reply.text).toBe(
      'Refunds take 14 days [source: S1]. Invented. (Removed invalid citation)',
    );
    expect(reply.citations.removed).toEqual(['S42']);
    expect(events).toHaveLength(1);

    const stream = engine.stream({ message: 'What is the refund policy?', mode: 'query' });
    let streamed = '';
    for await (const part of stream) if (part.type === 'text-delta') streamed += part.text;
    expect(streamed).toBe(
      'Refunds take 14 days [source: S1]. Invented. (Removed invalid citation)',
    );
    expect(streamed).toBe((await stream.response).text);
    expect(streamed).not.toContain('S42');
  });

  it('appends a standard citation line when asked (engine or session), and no removal note when off', async () => {
    const answer =
      'Refunds take 14 days [source: S1]. Shipping is fast [source: S2]. Invented [source: S9].';
    const engine = await engineWithDocs({
      llm: createMockLLM({ responses: answer }),
      citations: { removalNote: false },
    });
    const session = await engine.createSession({
      userId: 'u1',
      settings: { includeCitations: true },
    });
    const stream = engine.stream({
      sessionId: session.id,
      message: 'What is the refund policy and how fast is shipping?',
    });
    let streamed = '';
    for await (const part of stream) if (part.type === 'text-delta') streamed += part.text;
    const reply = await stream.response;
    // The line names each cited source by its title (seeds 002/003).
    const line = `Sources: S1 (${reply.sources[0]!.title}), S2 (${reply.sources[1]!.title})`;
    expect(line).toMatch(/\((Refund policy|Shipping)\), S2 \((Refund policy|Shipping)\)$/);
    expect(reply.text).toBe(
      `Refunds take 14 days [source: S1]. Shipping is fast [source: S2]. Invented.\n\n${line}`,
    );
    expect(streamed).toBe(reply.text);
    // The judge checks the answer, not the appended line.
    expect(reply.grounding!.claims.map((claim) => claim.text)).not.toContain(line);
  });

  it('sends history as role messages and the sources fenced in a user message, not the system prompt', async () => {
    const llm = createMockLLM({ responses: 'Answer [source: S1].' });
    // The scripted model would also be asked to condense follow-ups: keep that offline here.
    const engine = await engineWithDocs({ llm, rewrite: { llm: 'never' } });
    const session = await engine.createSession({ userId: 'u1' });
    await engine.chat({ sessionId: session.id, message: 'What is the refund policy?' });
    await engine.chat({ sessionId: session.id, message: 'How long does shipping take?' });
    const { request } = llm.calls[1]!;
    expect(request.messages).toEqual([
      { role: 'user', content: 'What is the refund policy?' },
      { role: 'assistant', content: 'Answer [source: S1].' },
      { role: 'user', content: expect.stringContaining('<source id="S1"') },
      { role: 'user', content: 'How long does shipping take?' },
    ]);
    expect(request.messages[2]!.content).toMatch(/Rotterdam/);
    // Document text never travels in the system role.
    expect(request.system).not.toContain('<source id=');
    expect(request.system).not.toMatch(/Rotterdam/);
    expect(request.system).toContain('This is an ongoing conversation');
    expect(llm.calls[0]!.request.system).not.toContain('This is an ongoing conversation');
    expect(request.sources?.[0]?.label).toBe('S1');
  });
});

describe('sessions', () => {
  it('persists the user message first, then the assistant message with sources in one write', async () => {
    const store = createMemorySessionStore();
    const append = vi.spyOn(store, 'appendMessages');
    const engine = await engineWithDocs({ sessionStore: store });
    const session = await engine.createSession({ userId: 'u1', title: 'Support' });
    const reply = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    expect(append).toHaveBeenCalledTimes(2);
    expect(append.mock.calls[0]![1].map((message) => message.role)).toEqual(['user']);
    expect(append.mock.calls[1]![1].map((message) => message.role)).toEqual(['assistant']);
    const history = await engine.history({ sessionId: session.id, userId: 'u1' });
    expect(history.total).toBe(2);
    expect(history.messages[1]).toMatchObject({
      id: reply.messageId,
      role: 'assistant',
      status: 'complete',
    });
    expect(history.messages[1]!.sources.length).toBe(reply.sources.length);
    expect(history.session.stats.messageCount).toBe(2);
    const without = await engine.history({
      sessionId: session.id,
      userId: 'u1',
      includeSources: false,
    });
    expect(without.messages[1]!.sources).toEqual([]);
  });

  it('never shows a session to another user', async () => {
    const engine = await engineWithDocs();
    const session = await engine.createSession({ userId: 'alice' });
    await expect(
      engine.getSession({ sessionId: session.id, userId: 'bob' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      engine.chat({ sessionId: session.id, userId: 'bob', message: 'What is the refund policy?' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.history({ sessionId: session.id, userId: 'bob' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      engine.deleteSession({ sessionId: session.id, userId: 'bob' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await engine.history({ sessionId: session.id, userId: 'alice' })).total).toBe(0);
  });

  it('ends the session on the quit word, completing its learning trajectory', async () => {
    const engine = await engineWithDocs();
    const ended = vi.fn();
    engine.on('session.ended', ended);
    const session = await engine.createSession({ userId: 'u1' });
    await engine.chat({ sessionId: session.id, message: 'What is the refund policy?' });
    const reply = await engine.chat({ sessionId: session.id, message: '  QUIT ' });
    expect(reply.ended).toBe(true);
    expect(ended).toHaveBeenCalledWith({ sessionId: session.id, reason: 'quit' });
    expect((await engine.getSession({ sessionId: session.id, userId: 'u1' })).status).toBe('ended');
    await expect(engine.chat({ sessionId: session.id, message: 'hello?' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('query mode stores nothing and returns no session', async () => {
    const store = createMemorySessionStore();
    const append = vi.spyOn(store, 'appendMessages');
    const engine = await engineWithDocs({ sessionStore: store });
    const reply = await engine.chat({ message: 'How long does shipping take?', mode: 'query' });
    expect(reply.sessionId).toBeNull();
    expect(reply.userMessageId).toBeNull();
    expect(append).not.toHaveBeenCalled();
  });

  it('serialises turns of one session in call order', async () => {
    const llm = createMockLLM({
      responses: (request) => `echo ${request.messages.at(-1)!.content}`,
    });
    const engine = await engineWithDocs({ llm });
    const session = await engine.createSession({ userId: 'u1' });
    const questions = Array.from({ length: 8 }, (_, index) => `refund question ${index}`);
    await Promise.all(questions.map((message) => engine.chat({ sessionId: session.id, message })));
    const history = await engine.history({ sessionId: session.id, userId: 'u1' });
    expect(history.messages.map((message) => message.content)).toEqual(
      questions.flatMap((question) => [question, `echo ${question}`]),
    );
  });
});

describe('bad input is a typed error, raised before anything is stored', () => {
  it('rejects empty and oversized messages naming the field', async () => {
    const store = createMemorySessionStore();
    const engine = await engineWithDocs({ sessionStore: store, limits: { maxMessageLength: 50 } });
    const session = await engine.createSession({ userId: 'u1' });
    for (const message of ['', '   ', 'x'.repeat(51)]) {
      const error = await engine.chat({ sessionId: session.id, message }).catch((e: unknown) => e);
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues[0]!.path).toBe('message');
    }
    expect(await store.countMessages(session.id)).toBe(0);
  });

  it('rejects unknown request fields and unknown sessions', async () => {
    const engine = await engineWithDocs();
    await expect(engine.chat({ message: 'hi', colour: 'red' } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(engine.chat({ sessionId: 'nope', message: 'hi' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('rejects a malformed document batch as a whole, keeping what was ingested before', async () => {
    const engine = await engineWithDocs();
    const before = await engine.search('refund policy');
    const error = await engine
      .ingest([
        { id: 'ok', text: 'fine text' },
        { id: '', text: 'no id' },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]!.path).toBe('1.id');
    await expect(
      engine.ingest([
        { id: 'a', text: 'x' },
        { id: 'a', text: 'y' },
      ]),
    ).rejects.toThrow(/duplicate id 'a'/);
    await expect(engine.ingest([{ id: 'e', text: '  ' }])).rejects.toThrow(
      /0.text: must not be empty/,
    );
    await expect(
      engine.ingest([{ id: 'm', text: 'x', metadata: { text: 'clash' } }]),
    ).rejects.toThrow(/reserved/);
    expect(await engine.search('refund policy')).toEqual(before);
    expect((await engine.search('fine text', { k: 10 })).some((s) => s.documentId === 'ok')).toBe(
      false,
    );
  });

  it('rejects bad config naming the field', () => {
    expect(() => createChatEngine({ retrieval: { topK: 0 } })).toThrow(ConfigError);
    try {
      createChatEngine({ chunking: { chunkSize: 100, chunkOverlap: 100 } });
    } catch (error) {
      expect((error as ConfigError).issues[0]!.path).toBe('chunking.chunkOverlap');
    }
    expect(() => createChatEngine({ llm: {} as LLMProvider })).toThrow(/llm/);
    expect(() => createChatEngine({ unknown: true } as never)).toThrow(ConfigError);
  });
});

describe('ingestion', () => {
  it('is idempotent per document id: re-ingesting replaces the chunks, delete removes them', async () => {
    const engine = createChatEngine({ chunking: { chunkSize: 32, chunkOverlap: 0 } });
    const long = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i} talks about zebra number ${i} in detail.`,
    ).join('\n\n');
    const first = await engine.ingest([{ id: 'doc', text: long }]);
    expect(first.chunks).toBeGreaterThan(2);
    const second = await engine.ingest([
      { id: 'doc', text: 'Only one short paragraph about giraffes.' },
    ]);
    expect(second.chunks).toBe(1);
    expect(second.removedChunks).toBe(first.chunks - 1);
    expect(await engine.search('zebra', { k: 10 })).toEqual([]);
    expect((await engine.search('giraffes'))[0]?.chunkId).toBe('doc#0');
    expect(await engine.deleteDocuments(['doc'])).toBe(1);
    expect(await engine.search('giraffes')).toEqual([]);
  });

  it('reports progress and stops on abort, keeping finished documents', async () => {
    const engine = createChatEngine();
    const docs = Array.from({ length: 600 }, (_, i) => ({
      id: `d${i}`,
      text: `Document ${i} about topic ${i}.`,
    }));
    const progress: number[] = [];
    await engine.ingest(docs, { onProgress: (p) => progress.push(p.documentsDone) });
    expect(progress.at(-1)).toBe(600);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    const controller = new AbortController();
    const second = createChatEngine();
    const done: number[] = [];
    const result = second.ingest(docs, {
      signal: controller.signal,
      onProgress: (p) => {
        done.push(p.documentsDone);
        controller.abort();
      },
    });
    await expect(result).rejects.toMatchObject({ code: 'aborted' });
    expect(done).toHaveLength(1);
    expect((await second.search('Document 0 about topic 0'))[0]?.documentId).toBe('d0');
  });
});

describe('search', () => {
  it('returns the whole chunk text and its metadata; chat sources stay snippets', async () => {
    const engine = createChatEngine();
    const filler = Array.from(
      { length: 8 },
      (_, i) => `Section ${i} of the warehouse manual describes shelving rules in plain words.`,
    ).join(' ');
    const text = `${filler} The loading dock closes at 17:30 on Fridays.`;
    await engine.ingest([
      { id: 'manual', title: 'Warehouse manual', text, metadata: { lang: 'en', site: 3 } },
    ]);
    const [hit] = await engine.search('When does the loading dock close on Fridays?');
    expect(hit).toMatchObject({ id: 'S1', documentId: 'manual', title: 'Warehouse manual' });
    expect(hit!.text).toBe(text);
    expect(hit!.text.length).toBeGreaterThan(240);
    expect(hit!.snippet.length).toBeLessThanOrEqual(241);
    expect(hit!.snippet).not.toContain('17:30');
    expect(hit!.metadata).toMatchObject({
      documentId: 'manual',
      chunkIndex: 0,
      lang: 'en',
      site: 3,
    });

    const reply = await engine.chat({
      message: 'When does the loading dock close?',
      mode: 'query',
    });
    expect(reply.sources[0]?.documentId).toBe('manual');
    expect(reply.sources[0]).not.toHaveProperty('text');
  });
});

describe('failures', () => {
  it('keeps the user message when the model fails and reports a typed error', async () => {
    const store = createMemorySessionStore();
    const llm = createMockLLM({ responses: new Error('model down') });
    const engine = await engineWithDocs({ llm, sessionStore: store });
    const failed = vi.fn();
    engine.on('turn.failed', failed);
    const session = await engine.createSession({ userId: 'u1' });
    const error = await engine
      .chat({ sessionId: session.id, message: 'What is the refund policy?' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'provider_error' });
    expect(failed).toHaveBeenCalledOnce();
    const messages = await store.listMessages(session.id);
    expect(messages.map((message) => message.role)).toEqual(['user']);
  });

  it('stores a stream broken mid-way as an incomplete answer and ends with an error part', async () => {
    const store = createMemorySessionStore();
    const llm = createMockLLM({
      responses: {
        chunks: ['Refunds take ', '14 days'],
        errorAfter: new Error('connection reset'),
      },
    });
    const engine = await engineWithDocs({ llm, sessionStore: store });
    const session = await engine.createSession({ userId: 'u1' });
    const stream = engine.stream({ sessionId: session.id, message: 'What is the refund policy?' });
    const parts: ChatStreamPart[] = [];
    for await (const part of stream) parts.push(part);
    const last = parts.at(-1)!;
    expect(last.type).toBe('error');
    await expect(stream.response).rejects.toMatchObject({ code: 'provider_error' });
    const messages = await store.listMessages(session.id);
    expect(messages.map((message) => [message.role, message.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'incomplete'],
    ]);
    expect(messages[1]!.content).toBe('Refunds take 14 days');
    expect(last.type === 'error' && last.partialMessageId).toBe(messages[1]!.id);
  });

  it('aborting keeps the user message and the partial answer', async () => {
    const store = createMemorySessionStore();
    const llm = createMockLLM({ responses: 'one two three four five six seven', chunkDelayMs: 20 });
    const engine = await engineWithDocs({ llm, sessionStore: store });
    const session = await engine.createSession({ userId: 'u1' });
    const controller = new AbortController();
    const stream = engine.stream({
      sessionId: session.id,
      message: 'What is the refund policy?',
      signal: controller.signal,
    });
    for await (const part of stream) if (part.type === 'text-delta') controller.abort();
    await expect(stream.response).rejects.toMatchObject({ code: 'aborted' });
    const messages = await store.listMessages(session.id);
    expect(messages[0]!.role).toBe('user');
    expect(messages[1]).toMatchObject({ role: 'assistant', status: 'incomplete' });
  });

  it('degrades to an answer without context when retrieval fails', async () => {
    const engine = createChatEngine({
      embedder: {
        name: 'broken',
        specificationVersion: 'v1',
        id: 'broken',
        dimensions: 3,
        embed: async () => {
          throw new Error('embedder offline');
        },
      },
      llm: createMockLLM({ responses: 'I can only answer generally.' }),
    });
    const retrieval = vi.fn();
    engine.on('retrieval', retrieval);
    const reply = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    expect(reply.status).toBe('degraded');
    expect(reply.sources).toEqual([]);
    expect(reply.text).toBe('I can only answer generally.');
    expect(retrieval.mock.calls[0]![0].error).toMatch(/embedder offline/);
  });

  it('a throwing listener never breaks a turn', async () => {
    const engine = await engineWithDocs();
    const errors = vi.fn();
    engine.on('error', errors);
    engine.on('retrieval', () => {
      throw new Error('listener bug');
    });
    const reply = await engine.chat({ message: 'What is the refund policy?', mode: 'query' });
    expect(reply.text.length).toBeGreaterThan(0);
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ where: 'listener:retrieval' }));
  });
});

describe('learning', () => {
  it('records one trajectory step per turn with the confidence as reward', async () => {
    const engine = await engineWithDocs();
    const steps: { stepNumber: number; reward: number; trajectoryId: string }[] = [];
    engine.on('learning', (event) => steps.push(event));
    const session = await engine.createSession({ userId: 'u1' });
    const first = await engine.chat({
      sessionId: session.id,
      message: 'What is the refund policy?',
    });
    await engine.chat({ sessionId: session.id, message: 'How long does shipping take?' });
    expect(steps.map((step) => step.stepNumber)).toEqual([1, 2]);
    expect(steps[0]!.reward).toBe(first.confidence.overall);
    expect(steps[1]!.trajectoryId).toBe(steps[0]!.trajectoryId);
    expect((await engine.getSession({ sessionId: session.id, userId: 'u1' })).trajectoryId).toBe(
      steps[0]!.trajectoryId,
    );
  });
});
