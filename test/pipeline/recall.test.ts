import { describe, expect, it } from 'vitest';

import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { AbortError } from '../../src/errors/index.js';
import type { MessageRecord } from '../../src/ports/chat-records.js';
import type { EmbeddingProvider } from '../../src/ports/embedding-provider.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';
import type { VectorStore } from '../../src/ports/vector-store.js';
import {
  createRecall,
  formatRecalled,
  recallConfigSchema,
  recallNamespace,
  type RecallDeps,
} from '../../src/pipeline/recall.js';
import { safeParse } from '../../src/util/schema.js';

const wordTokenizer: Tokenizer = {
  name: 'words',
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  encode: () => [],
  decode: () => '',
};

let sequence = 0;
function message(
  userId: string,
  sessionId: string,
  content: string,
  extra: Partial<MessageRecord> = {},
): MessageRecord {
  sequence++;
  return {
    id: `m${String(sequence).padStart(4, '0')}`,
    sessionId,
    userId,
    role: 'user',
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

function setup(overrides: Partial<RecallDeps> = {}, settings = {}) {
  const vectorStore = createMemoryVectorStore();
  const deps: RecallDeps = {
    vectorStore,
    embedder: createHashingEmbedder(),
    tokenizer: wordTokenizer,
    namespace: 'ns',
    ...overrides,
  };
  return { vectorStore, recall: createRecall(deps, settings) };
}

const ALICE_REFUND = 'My order 4711 of the blue kettle arrived broken and I want a refund';

describe('recall', () => {
  it('finds an earlier message of the same user in the same session', async () => {
    const { recall } = setup();
    const earlier = message('alice', 's1', ALICE_REFUND);
    recall.index([earlier, message('alice', 's1', 'What are your opening hours on Sunday?')]);
    await recall.pending();
    const found = await recall.recall({
      userId: 'alice',
      sessionId: 's1',
      query: 'refund for the broken blue kettle order',
    });
    expect(found.map((item) => item.messageId)).toEqual([earlier.id]);
    expect(found[0]).toMatchObject({ role: 'user', sessionId: 's1', text: ALICE_REFUND });
    expect(found[0]!.score).toBeGreaterThanOrEqual(0.5);
    expect(found[0]!.tokens).toBe(wordTokenizer.count(ALICE_REFUND));
  });

  it('never returns another user’s message, in either scope, even an identical one', async () => {
    const { recall } = setup({}, { minSimilarity: 0 });
    recall.index([
      message('bob', 's1', ALICE_REFUND), // same session id, other owner (a forged record)
      message('bob', 's2', ALICE_REFUND),
      message('bob', 's2', 'refund broken kettle order blue'),
    ]);
    await recall.pending();
    for (const scope of ['session', 'user'] as const) {
      const found = await recall.recall({
        userId: 'alice',
        sessionId: 's1',
        query: ALICE_REFUND,
        scope,
      });
      expect(found).toEqual([]);
    }
    const bobs = await recall.recall({
      userId: 'bob',
      sessionId: 's2',
      query: ALICE_REFUND,
      scope: 'user',
    });
    expect(bobs.length).toBeGreaterThan(0);
    expect(bobs.every((item) => item.messageId !== undefined)).toBe(true);
  });

  it('re-checks ownership even when a store ignores the filter', async () => {
    const inner = createMemoryVectorStore();
    const leaky: VectorStore = {
      ...inner,
      query: (namespace, vector, options) => inner.query(namespace, vector, { k: options.k }),
    };
    const { recall } = setup({ vectorStore: leaky }, { minSimilarity: 0 });
    recall.index([message('bob', 's1', ALICE_REFUND)]);
    await recall.pending();
    expect(
      await recall.recall({ userId: 'alice', sessionId: 's1', query: ALICE_REFUND, scope: 'user' }),
    ).toEqual([]);
  });

  it('scope session stays in the session; scope user reaches the user’s other sessions', async () => {
    const { recall } = setup();
    const otherSession = message('alice', 's2', ALICE_REFUND);
    recall.index([otherSession]);
    await recall.pending();
    const query = {
      userId: 'alice',
      sessionId: 's1',
      query: 'refund broken blue kettle order 4711',
    };
    expect(await recall.recall({ ...query, scope: 'session' })).toEqual([]);
    const found = await recall.recall({ ...query, scope: 'user' });
    expect(found.map((item) => item.messageId)).toEqual([otherSession.id]);
  });

  it('leaves out the recent window and the current message', async () => {
    const { recall } = setup({}, { minSimilarity: 0 });
    const a = message('alice', 's1', ALICE_REFUND);
    const b = message('alice', 's1', 'The blue kettle refund for order 4711 please');
    const current = message('alice', 's1', 'refund broken blue kettle 4711');
    recall.index([a, b, current]);
    await recall.pending();
    const found = await recall.recall({
      userId: 'alice',
      sessionId: 's1',
      query: current.content,
      excludeIds: [current.id, b.id],
    });
    expect(found.map((item) => item.messageId)).toEqual([a.id]);
  });

  it('keeps to the minimum similarity, the message count and the token budget', async () => {
    const { recall } = setup({}, { minSimilarity: 0, maxMessages: 2, maxTokens: 1000 });
    const messages = Array.from({ length: 6 }, (_, index) =>
      message('alice', 's1', `kettle refund order number ${index} broken`),
    );
    recall.index(messages);
    await recall.pending();
    const query = { userId: 'alice', sessionId: 's1', query: 'kettle refund broken order' };
    expect(await recall.recall(query)).toHaveLength(2);

    const { recall: budgeted } = setup({}, { minSimilarity: 0, maxMessages: 5, maxTokens: 13 });
    budgeted.index(messages);
    await budgeted.pending();
    const withinBudget = await budgeted.recall(query);
    expect(withinBudget).toHaveLength(2); // 6 words each
    expect(withinBudget.reduce((sum, item) => sum + item.tokens, 0)).toBeLessThanOrEqual(13);

    const { recall: strict } = setup({}, { minSimilarity: 1 });
    strict.index(messages);
    await strict.pending();
    expect(await strict.recall({ ...query, query: 'opening hours on sunday' })).toEqual([]);
  });

  it('indexes user and assistant messages with text, not summaries, system messages or guard answers', async () => {
    const { recall, vectorStore } = setup();
    recall.index([
      message('alice', 's1', 'a question about kettles'),
      message('alice', 's1', 'an answer about kettles', { role: 'assistant' }),
      message('alice', 's1', 'condensed', { role: 'system-summary', covers: ['x'] }),
      message('alice', 's1', 'rules', { role: 'system' }),
      message('alice', 's1', 'I do not know', { role: 'assistant', guard: true }),
      message('alice', 's1', '   '),
    ]);
    await recall.pending();
    expect(await vectorStore.count(recallNamespace('ns'))).toBe(2);
    const [record] = await vectorStore.query(recallNamespace('ns'), new Float32Array(384).fill(1), {
      k: 1,
      filter: { role: 'assistant' },
    });
    expect(Object.keys(record!.metadata).sort()).toEqual(
      ['createdAt', 'messageId', 'role', 'sessionId', 'text', 'userId'].sort(),
    );
    expect(await vectorStore.count('ns')).toBe(0); // never in the document namespace
  });

  it('embeds in the background: index returns before the embedding, pending() waits for it', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = createHashingEmbedder();
    let embedded = 0;
    const slow: EmbeddingProvider = {
      ...inner,
      async embed(texts, options) {
        await gate;
        embedded += texts.length;
        return inner.embed(texts, options);
      },
    };
    const { recall, vectorStore } = setup({ embedder: slow });
    recall.index([message('alice', 's1', ALICE_REFUND)]);
    // The caller goes on while the embedding waits.
    expect(embedded).toBe(0);
    let settled = false;
    const pending = recall.pending().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false);
    expect(await vectorStore.count(recallNamespace('ns'))).toBe(0); // not recallable yet
    release();
    await pending;
    expect(embedded).toBe(1);
    expect(await vectorStore.count(recallNamespace('ns'))).toBe(1);
  });

  it('turns failures into [] and reports them; background failures never reject', async () => {
    const errors: string[] = [];
    const broken: EmbeddingProvider = {
      ...createHashingEmbedder(),
      async embed() {
        throw new Error('embedder down');
      },
    };
    const { recall } = setup({ embedder: broken, onError: (_, where) => errors.push(where) });
    recall.index([message('alice', 's1', ALICE_REFUND)]);
    await expect(recall.pending()).resolves.toBeUndefined();
    expect(await recall.recall({ userId: 'alice', sessionId: 's1', query: 'kettle' })).toEqual([]);
    expect(errors).toEqual(['recall.index', 'recall.query']);

    const failingStore: VectorStore = {
      ...createMemoryVectorStore(),
      query: async () => {
        throw new Error('store down');
      },
    };
    const { recall: storeless } = setup({ vectorStore: failingStore });
    expect(await storeless.recall({ userId: 'alice', sessionId: 's1', query: 'kettle' })).toEqual(
      [],
    );
  });

  it('rejects with AbortError when the turn is aborted', async () => {
    const { recall } = setup();
    const controller = new AbortController();
    controller.abort();
    await expect(
      recall.recall({
        userId: 'alice',
        sessionId: 's1',
        query: 'kettle',
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it('returns nothing when disabled or without a user', async () => {
    const { recall } = setup({}, { enabled: false, minSimilarity: 0 });
    recall.index([message('alice', 's1', ALICE_REFUND)]);
    await recall.pending();
    expect(await recall.recall({ userId: 'alice', sessionId: 's1', query: ALICE_REFUND })).toEqual(
      [],
    );
    const { recall: enabled } = setup({}, { minSimilarity: 0 });
    expect(await enabled.recall({ userId: '', sessionId: 's1', query: ALICE_REFUND })).toEqual([]);
  });

  it('forgets a deleted session, after its queued indexing', async () => {
    const { recall, vectorStore } = setup();
    recall.index([message('alice', 's1', ALICE_REFUND), message('alice', 's2', ALICE_REFUND)]);
    await recall.forget('s1');
    expect(await vectorStore.count(recallNamespace('ns'))).toBe(1);
  });

  it('validates its config section and formats recalled messages oldest first', () => {
    const parsed = safeParse(recallConfigSchema(), {});
    expect(parsed.success && parsed.data).toEqual({
      enabled: true,
      scope: 'session',
      maxMessages: 5,
      maxTokens: 1000,
      minSimilarity: 0.5,
    });
    const bad = safeParse(recallConfigSchema(), { scope: 'everyone', maxMessages: 11 });
    expect(bad.success).toBe(false);
    if (!bad.success)
      expect(bad.issues.map((issue) => issue.path).sort()).toEqual(['maxMessages', 'scope']);
    expect(
      formatRecalled([
        { role: 'assistant', text: 'later', createdAt: '2025-02-01T00:00:00.000Z' },
        { role: 'user', text: 'earlier', createdAt: '2025-01-01T00:00:00.000Z' },
      ]),
    ).toBe('[user, 2025-01-01] earlier\n[assistant, 2025-02-01] later');
  });
});
