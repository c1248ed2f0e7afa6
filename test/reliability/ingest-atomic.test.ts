/**
 * Ingest is all or nothing across stores (issue 14 item 5): when the vector store, the keyword
 * index or the graph store fails part-way, the documents of the call are put back as they were
 * before the error is thrown — new documents removed, re-ingested ones restored to their
 * previous chunks — in all three stores. Also: unstorable characters are rejected before
 * anything is written, and a store failing during a turn is an internal error, not the model's.
 */
import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../src/adapters/memory/snapshot.js';
import {
  createChatEngine,
  createMemoryGraphStore,
  createMemoryKeywordIndex,
  createMemorySessionStore,
  createMemoryVectorStore,
  InternalError,
  ValidationError,
  type ChatEngine,
  type IngestDocument,
  type MemoryGraphStore,
  type MemoryKeywordIndex,
  type MemoryVectorStore,
  type SessionStore,
} from '../../src/index.js';
import { createChatHandler } from '../../src/http/index.js';

const NAMESPACE = 'default';

/** `target` whose `method` throws on its `nth` call (counted from when the trap is armed). */
function trap<T extends object>(target: T) {
  let armed: { method: string; nth: number; calls: number } | undefined;
  const proxy = new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (armed && armed.method === property && ++armed.calls === armed.nth) {
          armed = undefined;
          return Promise.reject(new Error(`${String(property)}: connection reset`));
        }
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
  return {
    store: proxy,
    arm(method: keyof T & string, nth = 1) {
      armed = { method, nth, calls: 0 };
    },
  };
}

interface Stores {
  readonly vectors: MemoryVectorStore;
  readonly keywords: MemoryKeywordIndex;
  readonly graph: MemoryGraphStore;
}

function setup() {
  const stores: Stores = {
    vectors: createMemoryVectorStore({ index: 'exact' }),
    keywords: createMemoryKeywordIndex(),
    graph: createMemoryGraphStore(),
  };
  const vectorStore = trap(stores.vectors);
  const keywordIndex = trap(stores.keywords);
  const graphStore = trap(stores.graph);
  const engine = createChatEngine({
    vectorStore: vectorStore.store,
    keywordIndex: keywordIndex.store,
    graphStore: graphStore.store,
  });
  return { engine, stores, vectorStore, keywordIndex, graphStore };
}

const PROBES = [new Float32Array(384).fill(1), Float32Array.from({ length: 384 }, (_, i) => i % 7)];
const ALL_WORDS =
  'refunds days shipping express warehouse passwords digital goods policy orders support ' +
  'giraffes savanna necks acacia leaves herds zebra';

/** Everything the three stores hold, in a canonical order (scores stand for the vectors). */
async function contents(stores: Stores) {
  const count = await stores.vectors.count(NAMESPACE);
  const vectors: Record<string, unknown> = {};
  for (const [index, probe] of PROBES.entries()) {
    if (count === 0) break;
    for (const match of await stores.vectors.query(NAMESPACE, probe, { k: count })) {
      vectors[`${match.id} ${index}`] = { metadata: match.metadata, score: match.score.toFixed(6) };
    }
  }
  const keywords: Record<string, unknown> = {};
  for (const match of await stores.keywords.search(NAMESPACE, ALL_WORDS, { k: 1000 })) {
    keywords[match.id] = { metadata: match.metadata, score: match.score.toFixed(6) };
  }
  const { json } = decodeSnapshot(stores.graph.snapshot(), 'graph') as {
    json: { namespaces: { name: string; nodes: { id: string }[]; edges: object[] }[] };
  };
  const graph = json.namespaces
    .filter((space) => space.nodes.length > 0)
    .map((space) => ({
      name: space.name,
      nodes: [...space.nodes].sort((a, b) => a.id.localeCompare(b.id)),
      edges: space.edges.map((edge) => JSON.stringify(edge)).sort(),
    }));
  return {
    vectorCount: count,
    keywordCount: await stores.keywords.count(NAMESPACE),
    vectors,
    keywords,
    graph,
  };
}

const paragraphs = (topic: string, count: number) =>
  Array.from(
    { length: count },
    (_, index) =>
      `## Part ${index + 1}\n\n${topic} part ${index + 1}: ` +
      'refunds are issued within fourteen days and express shipping costs extra. '.repeat(40),
  ).join('\n\n');

const HANDBOOK: IngestDocument = {
  id: 'handbook',
  title: 'Handbook',
  uri: 'docs/handbook.md',
  text: `${paragraphs('Handbook', 4)}\n\nSee [giraffes](giraffes).`,
};
const GIRAFFES: IngestDocument = {
  id: 'giraffes',
  title: 'Giraffes',
  text: 'Giraffes browse acacia leaves on the savanna. Their long necks reach high. Herds mix with zebra.',
};

/** Each store write ingest makes, as [store, method]. */
const FAILURES = [
  ['vectorStore', 'upsert'],
  ['keywordIndex', 'add'],
  ['graphStore', 'deleteNodes'],
  ['graphStore', 'upsertNodes'],
  ['graphStore', 'upsertEdges'],
  ['vectorStore', 'delete'],
  ['keywordIndex', 'delete'],
] as const;

type Setup = ReturnType<typeof setup>;

type Store = (typeof FAILURES)[number][0];

async function failIngest(env: Setup, [store, method]: [Store, string], docs: IngestDocument[]) {
  (env[store] as { arm(method: string): void }).arm(method);
  await expect(env.engine.ingest(docs)).rejects.toThrow(`${method}: connection reset`);
}

describe('ingest is all or nothing across vector store, keyword index and graph', () => {
  // A new document has no graph nodes to delete first, and no earlier chunks: the vector
  // store's delete of stale chunks is skipped when the read before the write found none.
  const NEW_DOCUMENT_FAILURES = FAILURES.filter(
    ([store, method]) =>
      method !== 'deleteNodes' && !(store === 'vectorStore' && method === 'delete'),
  );
  it.each(NEW_DOCUMENT_FAILURES)(
    'a new document: %s.%s failing leaves every store as it was',
    async (...where: [Store, string]) => {
      const env = setup();
      await env.engine.ingest([HANDBOOK]);
      const before = await contents(env.stores);
      await failIngest(env, where, [GIRAFFES]);
      expect(await contents(env.stores)).toEqual(before);
      // And the store works again: the same call now succeeds.
      await env.engine.ingest([GIRAFFES]);
      expect((await contents(env.stores)).vectorCount).toBeGreaterThan(before.vectorCount);
    },
  );

  it.each(FAILURES)(
    'a re-ingested document: %s.%s failing keeps its previous chunks everywhere',
    async (...where: [Store, string]) => {
      const env = setup();
      await env.engine.ingest([HANDBOOK, GIRAFFES]);
      const before = await contents(env.stores);
      // Fewer chunks (stale ones would be removed) and other text, title and links.
      const shorter = { ...HANDBOOK, title: 'Handbook v2', text: paragraphs('Revised', 2) };
      await failIngest(env, where, [shorter]);
      expect(await contents(env.stores)).toEqual(before);
      // More chunks than before.
      const longer = { ...HANDBOOK, text: paragraphs('Expanded', 7) };
      await failIngest(env, where, [longer]);
      expect(await contents(env.stores)).toEqual(before);
    },
  );

  it('a failure in a later group of a large call undoes the earlier groups too', async () => {
    const env = setup();
    await env.engine.ingest([GIRAFFES]);
    const before = await contents(env.stores);
    const many = Array.from({ length: 300 }, (_, index) => ({
      id: `note-${index}`,
      text: `Note ${index} about refunds and shipping orders.`,
    }));
    // Documents are written 256 to a group: the second group's keyword write fails.
    env.keywordIndex.arm('add', 2);
    await expect(env.engine.ingest(many)).rejects.toThrow('add: connection reset');
    expect(await contents(env.stores)).toEqual(before);
  });

  it('an abort keeps the groups already done', async () => {
    const env = setup();
    const controller = new AbortController();
    const many = Array.from({ length: 300 }, (_, index) => ({
      id: `note-${index}`,
      text: `Note ${index} about refunds and shipping orders.`,
    }));
    await expect(
      env.engine.ingest(many, {
        signal: controller.signal,
        onProgress: () => controller.abort(),
      }),
    ).rejects.toMatchObject({ code: 'aborted' });
    expect(await env.stores.vectors.count(NAMESPACE)).toBe(256);
    expect(await env.stores.keywords.count(NAMESPACE)).toBe(256);
  });
});

describe('characters no store can hold are rejected before anything is stored', () => {
  const cases: [string, Partial<IngestDocument>, string][] = [
    ['text', { text: 'Refunds\u0000 are issued.' }, '0.text'],
    ['title', { title: 'Hand\u0000book' }, '0.title'],
    ['uri', { uri: 'docs/\u0000.md' }, '0.uri'],
    ['metadata value', { metadata: { team: 'ops\u0000' } }, '0.metadata.team'],
    ['metadata key', { metadata: { 'te\u0000am': 'ops' } }, '0.metadata'],
    ['lone surrogate', { text: 'Refunds \uD800 are issued.' }, '0.text'],
    ['id', { id: 'hand\u0000book' }, '0.id'],
  ];
  it.each(cases)('in a document %s', async (_, change, path) => {
    const env = setup();
    await env.engine.ingest([GIRAFFES]);
    const before = await contents(env.stores);
    const rejected = env.engine.ingest([{ ...HANDBOOK, ...change }]);
    await expect(rejected).rejects.toSatisfy(ValidationError.isInstance);
    await expect(rejected).rejects.toMatchObject({
      issues: [expect.objectContaining({ path })],
    });
    expect(await contents(env.stores)).toEqual(before);
  });

  it('in a user message, a session title or session metadata', async () => {
    const engine = createChatEngine();
    const session = await engine.createSession({ userId: 'u1' });
    await expect(
      engine.chat({ sessionId: session.id, userId: 'u1', message: 'Refunds?\u0000' }),
    ).rejects.toMatchObject({ code: 'validation_error', issues: [{ path: 'message' }] });
    await expect(engine.createSession({ userId: 'u1', title: 'a\u0000b' })).rejects.toMatchObject({
      code: 'validation_error',
      issues: [{ path: 'title' }],
    });
    await expect(
      engine.createSession({ userId: 'u1', metadata: { note: '\uDC00' } }),
    ).rejects.toMatchObject({ code: 'validation_error', issues: [{ path: 'metadata.note' }] });
    expect((await engine.history({ sessionId: session.id, userId: 'u1' })).messages).toEqual([]);
    // Other control characters are content: a form feed between PDF pages is kept.
    await engine.ingest([{ id: 'pdf', text: 'Page one.\fPage two.' }]);
  });
});

describe('a store failing during a turn', () => {
  function brokenAssistantWrites(): SessionStore {
    const store = createMemorySessionStore();
    return new Proxy(store, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const messages = args[1] as { role?: string }[] | undefined;
          if (
            property === 'appendMessages' &&
            messages?.some((message) => message.role === 'assistant')
          ) {
            return Promise.reject(new Error('invalid byte sequence for encoding "UTF8"'));
          }
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  }

  async function engineWithBrokenStore(): Promise<ChatEngine> {
    const engine = createChatEngine({ sessionStore: brokenAssistantWrites() });
    await engine.ingest([HANDBOOK]);
    return engine;
  }

  it('is an internal error, not a provider error', async () => {
    const engine = await engineWithBrokenStore();
    const session = await engine.createSession({ userId: 'u1' });
    const turn = engine.chat({
      sessionId: session.id,
      userId: 'u1',
      message: 'How long do refunds take?',
    });
    await expect(turn).rejects.toSatisfy(InternalError.isInstance);
    await expect(turn).rejects.toMatchObject({ code: 'internal_error', retryable: false });
  });

  it('is a generic 500 over HTTP', async () => {
    const engine = await engineWithBrokenStore();
    const handler = createChatHandler(engine, {
      authenticate: () => ({ id: 'u1' }),
      rateLimiter: false,
    });
    const post = (path: string, body: object) =>
      handler(
        new Request(`http://test${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const created = (await (await post('/conversations', {})).json()) as { id: string };
    const response = await post(`/conversations/${created.id}/messages`, {
      content: 'How long do refunds take?',
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      code: 'internal_error',
      message: 'Internal server error',
    });
  });
});
