import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { BaseRetriever } from '@langchain/core/retrievers';
import {
  RunnableLambda,
  RunnablePassthrough,
  RunnableSequence,
  type RunnableConfig,
} from '@langchain/core/runnables';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { describe, expect, it, vi } from 'vitest';
import { AbortError, ConfigError, createChatEngine, ValidationError } from '../../src/index.js';
import {
  CortexisRetriever,
  flattenMetadata,
  fromLangChainDocuments,
  type SearchableEngine,
} from '../../src/integrations/langchain/index.js';

// A page of a manual as a LangChain loader and splitter leave it: the fact sits past the
// 240 characters of a display snippet.
const manualText = [
  'The Harbor Street depot is the main maintenance site of the city bike fleet.',
  'Mechanics inspect brakes, tyres and lights on every bike that comes back from a long rental.',
  'Spare parts are ordered every Monday and arrive by Wednesday at the latest.',
  'Batteries of electric bikes are charged overnight in the north hall.',
  'The depot loading dock closes at 17:30 on Fridays.',
].join(' ');

const langChainDocs = [
  new Document({
    pageContent: manualText,
    metadata: {
      source: 'manuals/depot.md',
      title: 'Depot manual',
      lang: 'en',
      loc: { lines: { from: 1, to: 5 } },
    },
  }),
  new Document({
    pageContent:
      'Le quai de chargement du dépôt de la rue du Port ferme à 17 h 30 le vendredi, et le samedi à midi.',
    metadata: { source: 'manuels/depot.md', lang: 'fr', loc: { lines: { from: 1, to: 1 } } },
  }),
];

async function engineWithManual() {
  const engine = createChatEngine();
  await engine.ingest(fromLangChainDocuments(langChainDocs));
  return engine;
}

/** Records the retriever events LangChain's callback manager delivers. */
class RecordingHandler extends BaseCallbackHandler {
  name = 'recording';
  readonly events: string[] = [];
  override handleRetrieverStart(_retriever: unknown, query: string) {
    this.events.push(`start:${query}`);
  }
  override handleRetrieverEnd(documents: Document[]) {
    this.events.push(`end:${documents.length}`);
  }
  override handleRetrieverError(error: Error) {
    this.events.push(`error:${error.name}`);
  }
}

describe('fromLangChainDocuments', () => {
  it('turns pageContent into text and flattens nested metadata to dotted keys', () => {
    const [manual, french] = fromLangChainDocuments(langChainDocs);
    expect(manual).toEqual({
      id: expect.stringMatching(/^lc-[0-9a-f]{16}$/),
      text: manualText,
      title: 'Depot manual',
      uri: 'manuals/depot.md',
      metadata: {
        source: 'manuals/depot.md',
        lang: 'en',
        'loc.lines.from': 1,
        'loc.lines.to': 5,
      },
    });
    expect(french).not.toHaveProperty('title');
    expect(french!.id).not.toBe(manual!.id);
    // Stable: the same documents get the same ids, so ingesting again replaces them.
    expect(fromLangChainDocuments(langChainDocs).map((doc) => doc.id)).toEqual([
      manual!.id,
      french!.id,
    ]);
  });

  it('handles arrays, dates, reserved keys, ids and duplicates predictably', () => {
    const converted = fromLangChainDocuments(
      [
        {
          pageContent: 'One',
          id: 'doc-1',
          metadata: {
            tags: ['a', 'b'],
            rows: [{ x: 1 }],
            at: new Date('2024-05-01T10:00:00Z'),
            url: new URL('https://example.com/a'),
            section: 'Intro',
            nothing: undefined,
            size: Number.NaN,
            big: 10n,
            empty: {},
            pdf: { info: { Title: 'One' }, totalPages: 2 },
          },
        },
        { pageContent: 'Two', metadata: { source: 'b.md' } },
        { pageContent: 'Two', metadata: { source: 'b.md' } },
      ],
      { reservedKeyPrefix: 'lc.' },
    );
    expect(converted).toHaveLength(2);
    expect(converted[0]).toEqual({
      id: 'doc-1',
      text: 'One',
      metadata: {
        tags: '["a","b"]',
        rows: '[{"x":1}]',
        at: '2024-05-01T10:00:00.000Z',
        url: 'https://example.com/a',
        'lc.section': 'Intro',
        size: null,
        big: '10',
        'pdf.info.Title': 'One',
        'pdf.totalPages': 2,
      },
    });
    expect(converted[1]).toMatchObject({ text: 'Two', uri: 'b.md' });
    expect(flattenMetadata({ loc: { lines: { from: 1, to: 2 } }, tags: [] })).toEqual({
      'loc.lines.from': 1,
      'loc.lines.to': 2,
      tags: '[]',
    });
    expect(() =>
      fromLangChainDocuments([
        { pageContent: 'x', metadata: { section: 'a', 'langchain.section': 'b' } },
      ]),
    ).toThrow(/0\.metadata\.section: reserved key renamed to 'langchain\.section'/);
    expect(
      fromLangChainDocuments([{ pageContent: 'x', metadata: { source: 'a.md', n: 1 } }], {
        idKey: 'source',
        titleKey: 'source',
      })[0],
    ).toEqual({
      id: 'a.md',
      text: 'x',
      title: 'a.md',
      uri: 'a.md',
      metadata: { source: 'a.md', n: 1 },
    });
  });

  it('rejects bad documents with a ValidationError naming the index and field', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const attempt = () =>
      fromLangChainDocuments([
        { pageContent: 'fine' },
        { pageContent: 42 as unknown as string },
        { pageContent: '   ' },
        { pageContent: 'x', metadata: circular },
        { pageContent: 'x', metadata: { 'a.b': 1, a: { b: 2 } } },
        { pageContent: 'x', metadata: 'nope' as unknown as Record<string, unknown> },
      ]);
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual([
        '1.pageContent',
        '2.pageContent',
        '3.metadata.self',
        '4.metadata.a.b',
        '5.metadata',
      ]);
      expect((error as Error).message).toMatch(/^Invalid LangChain documents: 1\.pageContent/);
    }
    expect(() => fromLangChainDocuments([{ pageContent: 'x' }], { idKey: 'source' })).toThrow(
      /0\.metadata\.source/,
    );
    expect(() => fromLangChainDocuments('nope' as never)).toThrow(ValidationError);
  });
});

describe('CortexisRetriever', () => {
  it('is a LangChain retriever returning whole chunks with their metadata', async () => {
    const engine = await engineWithManual();
    const retriever = new CortexisRetriever({ engine, k: 1 });
    expect(retriever).toBeInstanceOf(BaseRetriever);

    const docs = await retriever.invoke('When does the depot loading dock close on Fridays?');
    expect(docs).toHaveLength(1);
    const [doc] = docs;
    expect(doc).toBeInstanceOf(Document);
    expect(doc!.pageContent).toBe(manualText);
    expect(doc!.pageContent.length).toBeGreaterThan(240);
    expect(doc!.pageContent).toContain('17:30 on Fridays');
    expect(doc!.id).toBe(doc!.metadata.chunkId);
    expect(doc!.metadata).toMatchObject({
      sourceId: 'S1',
      documentId: expect.stringMatching(/^lc-/),
      chunkId: expect.stringMatching(/#0$/),
      title: 'Depot manual',
      uri: 'manuals/depot.md',
      source: 'manuals/depot.md',
      lang: 'en',
      'loc.lines.from': 1,
      'loc.lines.to': 5,
      chunkIndex: 0,
    });
    expect(doc!.metadata.score).toBeGreaterThan(0);
  });

  it('answers inside a RunnableSequence: retriever, formatting, prompt, model, parser', async () => {
    const engine = await engineWithManual();
    const retriever = new CortexisRetriever({ engine, k: 2 });
    const formatDocs = RunnableLambda.from((docs: Document[]) =>
      docs.map((doc) => `[${doc.metadata.sourceId}] ${doc.pageContent}`).join('\n\n'),
    );
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'Answer from the context only.\n\nContext:\n{context}'],
      ['human', '{question}'],
    ]);
    const chain = RunnableSequence.from([
      { context: retriever.pipe(formatDocs), question: new RunnablePassthrough() },
      prompt,
      new FakeChatModel({}), // a LangChain test model that answers with its prompt
      new StringOutputParser(),
    ]);
    const handler = new RecordingHandler();
    const answer = await chain.invoke('When does the loading dock close on Fridays?', {
      callbacks: [handler],
    });
    expect(answer).toContain('The depot loading dock closes at 17:30 on Fridays.');
    expect(answer).toContain('[S1]');
    expect(handler.events).toEqual([
      'start:When does the loading dock close on Fridays?',
      expect.stringMatching(/^end:[12]$/),
    ]);
  });

  it('accepts callbacks alone as the second argument, as LangChain retrievers pass them', async () => {
    const engine = await engineWithManual();
    const handler = new RecordingHandler();
    const callbacks = CallbackManager.configure([handler]);
    const docs = await new CortexisRetriever({ engine, k: 1 }).invoke(
      'loading dock',
      callbacks as RunnableConfig,
    );
    expect(docs).toHaveLength(1);
    expect(handler.events).toEqual(['start:loading dock', 'end:1']);
  });

  it('applies its filter, also on flattened LangChain metadata', async () => {
    const engine = await engineWithManual();
    const french = new CortexisRetriever({ engine, k: 5, filter: { lang: 'fr' } });
    const docs = await french.invoke('quai de chargement vendredi');
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((doc) => doc.metadata.lang === 'fr')).toBe(true);

    const byLines = new CortexisRetriever({
      engine,
      k: 5,
      filter: { 'loc.lines.to': { $gte: 5 } },
      searchDepth: 'shallow',
    });
    const found = await byLines.invoke('loading dock depot');
    expect(found.map((doc) => doc.metadata.uri)).toEqual(['manuals/depot.md']);
  });

  it('passes the run signal to the search and rejects when it is aborted', async () => {
    const engine = await engineWithManual();
    const retriever = new CortexisRetriever({ engine });
    const handler = new RecordingHandler();
    const aborted = AbortSignal.abort();
    await expect(
      retriever.invoke('loading dock', { signal: aborted, callbacks: [handler] }),
    ).rejects.toSatisfy(AbortError.isInstance);
    expect(handler.events).toEqual(['start:loading dock', 'error:AbortError']);

    // A search in flight: the signal reaches the engine, and the run rejects when it fires
    // even if the engine ignored it.
    const seen: (AbortSignal | undefined)[] = [];
    const stalled: SearchableEngine = {
      search: (_query, options) => {
        seen.push(options?.signal);
        return new Promise(() => undefined);
      },
    };
    const controller = new AbortController();
    const pending = new CortexisRetriever({ engine: stalled }).invoke('loading dock', {
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]).toBe(controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });

    // Inside a sequence, the sequence's signal and timeout reach the retriever.
    const chain = RunnableSequence.from([
      new CortexisRetriever({ engine: stalled }),
      RunnableLambda.from((docs: Document[]) => docs.length),
    ]);
    const config: RunnableConfig = { timeout: 20 };
    await expect(chain.invoke('loading dock', config)).rejects.toThrow();
    expect(seen).toHaveLength(2);
    expect(seen[1]?.aborted).toBe(true);
  });

  it('rejects a missing engine or a bad k with a ConfigError, and bad search options on invoke', async () => {
    expect(() => new CortexisRetriever({} as never)).toThrow(ConfigError);
    const engine = createChatEngine();
    expect(() => new CortexisRetriever({ engine, k: 0 })).toThrow(ConfigError);
    const retriever = new CortexisRetriever({
      engine,
      searchDepth: 'bottomless' as never,
    });
    await expect(retriever.invoke('anything')).rejects.toSatisfy(ValidationError.isInstance);
  });
});
