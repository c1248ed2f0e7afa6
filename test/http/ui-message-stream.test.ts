import { uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ProviderError,
  type ChatResponse,
  type ChatStreamPart,
  type Source,
} from '../../src/index.js';
import {
  encodeUIMessageStream,
  uiMessageChunks,
  type CortexisUIDataTypes,
  type CortexisUIMessageMetadata,
  type UIMessageStreamChunk,
} from '../../src/http/index.js';

const source: Source = {
  id: 'S1',
  chunkId: 'refunds#0',
  documentId: 'refunds',
  title: 'Refund policy',
  uri: null,
  snippet: 'Refunds are issued within 14 days.',
  score: 0.8,
  vectorScore: 0.7,
  keywordScore: 0.9,
  fusedScore: 0.03,
  type: 'hybrid',
  graphBoost: 1,
  learnedBoost: 1,
  graphContext: null,
  metadata: { documentId: 'refunds', chunkIndex: 0 },
};

const confidence = {
  overall: 0.75,
  level: 'high' as const,
  sourceQuality: 0.8,
  sourceDiversity: 0.5,
  semanticCohesion: 0.9,
  graphContext: null,
  llmCertainty: null,
  weights: {
    sourceQuality: 0.5,
    sourceDiversity: 0.2,
    semanticCohesion: 0.3,
    graphContext: 0,
    llmCertainty: 0,
  },
};

const citations = { generatedIds: ['S1'], validIds: ['S1'], removed: [] };

const response: ChatResponse = {
  messageId: 'assistant-1',
  userMessageId: 'user-1',
  sessionId: 'chat-1',
  text: 'Refunds take 14 days [source: S1].',
  sources: [source],
  confidence,
  citations,
  guard: false,
  refused: null,
  grounding: null,
  status: 'complete',
  ended: false,
  timings: { retrievalMs: 1, generationMs: 2, totalMs: 3 },
  usage: { inputTokens: 10, outputTokens: 5 },
  model: 'mock',
  recalled: [],
  turnNumber: 1,
  historyCompacted: false,
  createdAt: '2026-01-01T00:00:00.000Z',
};

async function* from(parts: ChatStreamPart[]): AsyncGenerator<ChatStreamPart> {
  yield* parts;
}

async function collect(
  parts: ChatStreamPart[],
  settings?: Parameters<typeof uiMessageChunks>[1],
): Promise<UIMessageStreamChunk[]> {
  const chunks: UIMessageStreamChunk[] = [];
  for await (const chunk of uiMessageChunks(from(parts), settings)) chunks.push(chunk);
  return chunks;
}

/** Every chunk must pass the AI SDK's own chunk schema, as its stream reader checks it. */
async function expectValid(chunks: UIMessageStreamChunk[]): Promise<void> {
  const schema = uiMessageChunkSchema();
  for (const chunk of chunks) {
    const result = await schema.validate!(JSON.parse(JSON.stringify(chunk)));
    expect(result.success, JSON.stringify(chunk)).toBe(true);
  }
}

describe('uiMessageChunks', () => {
  it('maps a turn to start, data, source-document, text and finish chunks', async () => {
    const chunks = await collect(
      [
        { type: 'route', route: 'retrieval', k: 3 },
        { type: 'sources', sources: [source] },
        { type: 'text-delta', text: 'Refunds take 14 days' },
        { type: 'text-delta', text: '' },
        { type: 'text-delta', text: ' [source: S1].' },
        { type: 'citations', ...citations },
        { type: 'confidence', confidence },
        {
          type: 'grounding',
          grounding: { claims: [], supportedRatio: 1 },
          text: response.text,
          removed: [],
          blocked: false,
        },
        { type: 'done', response },
      ],
      { messageId: 'ui-1' },
    );
    expect(chunks).toEqual([
      { type: 'start', messageId: 'ui-1' },
      { type: 'data-route', data: { route: 'retrieval', k: 3 } },
      {
        type: 'source-document',
        sourceId: 'S1',
        mediaType: 'text/plain',
        title: 'Refund policy',
        providerMetadata: {
          cortexis: {
            documentId: 'refunds',
            chunkId: 'refunds#0',
            uri: null,
            snippet: 'Refunds are issued within 14 days.',
            score: 0.8,
            section: null,
          },
        },
      },
      { type: 'text-start', id: 'text' },
      { type: 'text-delta', id: 'text', delta: 'Refunds take 14 days' },
      { type: 'text-delta', id: 'text', delta: ' [source: S1].' },
      { type: 'data-citations', data: citations },
      { type: 'data-confidence', data: confidence },
      {
        type: 'data-grounding',
        data: {
          grounding: { claims: [], supportedRatio: 1 },
          text: response.text,
          removed: [],
          blocked: false,
        },
      },
      { type: 'text-end', id: 'text' },
      { type: 'data-guard', data: { active: false } },
      {
        type: 'finish',
        finishReason: 'stop',
        messageMetadata: {
          status: 'complete',
          messageId: 'assistant-1',
          sessionId: 'chat-1',
          userMessageId: 'user-1',
          model: 'mock',
          usage: { inputTokens: 10, outputTokens: 5 },
          ended: false,
          refused: null,
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
    await expectValid(chunks);
  });

  it('fills in what a replayed answer does not stream, and can leave sources out', async () => {
    const parts: ChatStreamPart[] = [
      { type: 'sources', sources: [source] },
      { type: 'text-delta', text: response.text },
      { type: 'done', response },
    ];
    const types = (await collect(parts)).map((chunk) => chunk.type);
    expect(types).toEqual([
      'start',
      'source-document',
      'text-start',
      'text-delta',
      'text-end',
      'data-citations',
      'data-confidence',
      'data-guard',
      'finish',
    ]);
    const withoutSources = await collect(parts, { sendSources: false });
    expect(withoutSources.some((chunk) => chunk.type === 'source-document')).toBe(false);
    expect((await collect(parts))[0]).toMatchObject({
      messageId: expect.stringMatching(/^\w{26}$/),
    });
  });

  it('ends a failed turn with a generic error chunk and error metadata', async () => {
    const failure = new ProviderError('HTTP 500 from https://key:sk-live@llm.internal/v1', {
      provider: 'openai',
      status: 500,
    });
    const chunks = await collect(
      [
        { type: 'route', route: 'retrieval', k: 3 },
        { type: 'text-delta', text: 'Refunds' },
        {
          type: 'error',
          error: { code: 'provider_error', message: failure.message, retryable: true },
          partialMessageId: 'partial-1',
        },
      ],
      { failure: async () => failure },
    );
    expect(chunks.slice(-4)).toEqual([
      { type: 'text-delta', id: 'text', delta: 'Refunds' },
      { type: 'text-end', id: 'text' },
      { type: 'error', errorText: 'The model is unavailable; please try again later' },
      {
        type: 'finish',
        finishReason: 'error',
        messageMetadata: {
          status: 'error',
          code: 'provider_error',
          retryable: true,
          partialMessageId: 'partial-1',
        },
      },
    ]);
    expect(JSON.stringify(chunks)).not.toMatch(/sk-live|llm\.internal/);
    await expectValid(chunks);
  });

  it('ends an aborted turn with abort, and a turn that failed before any part with an error', async () => {
    const aborted = await collect([
      {
        type: 'error',
        error: { code: 'aborted', message: 'aborted', retryable: false },
        partialMessageId: null,
      },
    ]);
    expect(aborted.at(-1)).toEqual({ type: 'abort', reason: 'aborted' });
    const silent = await collect([], { failure: async () => new Error('db password=hunter2') });
    expect(silent.slice(1)).toEqual([
      { type: 'error', errorText: 'Internal server error' },
      {
        type: 'finish',
        finishReason: 'error',
        messageMetadata: {
          status: 'error',
          code: 'internal_error',
          retryable: false,
          partialMessageId: null,
        },
      },
    ]);
    await expectValid([...aborted, ...silent]);
  });

  it('declares chunks the AI SDK accepts for UIMessage<metadata, data types>', () => {
    // A type error here means our declared chunks drifted from the SDK's.
    const accepted = (
      chunk: UIMessageStreamChunk,
    ): UIMessageChunk<CortexisUIMessageMetadata, CortexisUIDataTypes> => chunk;
    expectTypeOf(accepted).toBeFunction();
  });
});

describe('encodeUIMessageStream', () => {
  it('writes one `data:` frame per chunk and ends with [DONE]', async () => {
    async function* chunks(): AsyncGenerator<UIMessageStreamChunk> {
      yield { type: 'start', messageId: 'm' };
      yield { type: 'text-start', id: 'text' };
    }
    const text = await new Response(encodeUIMessageStream(chunks())).text();
    expect(text).toBe(
      'data: {"type":"start","messageId":"m"}\n\n' +
        'data: {"type":"text-start","id":"text"}\n\n' +
        'data: [DONE]\n\n',
    );
  });
});
