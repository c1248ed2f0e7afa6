import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbeddings } from '../../../src/adapters/openai/index.js';
import { AbortError, ConfigError, ProviderError } from '../../../src/errors/index.js';
import { sendJson, startLoopback, type Loopback } from '../http/loopback.js';

const KEY = 'sk-test-embeddings-key-42';

/** A vector of `dimensions` whose first component encodes the text length. */
function vectorFor(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, index) => (index === 0 ? text.length : 0.5));
}

describe('createOpenAIEmbeddings against a loopback server', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback((request, response) => {
      const input: string[] = request.body.input;
      const dimensions: number = request.body.dimensions ?? 8;
      // Answer in reverse order: the adapter must place vectors by `index`.
      const data = input
        .map((text, index) => ({
          object: 'embedding',
          index,
          embedding: vectorFor(text, dimensions),
        }))
        .reverse();
      sendJson(response, 200, {
        object: 'list',
        data,
        model: request.body.model,
        usage: { prompt_tokens: 5, total_tokens: 5 },
      });
    });
  });

  afterEach(async () => {
    await server.close();
  });

  it('posts the texts and returns one Float32Array per text in input order', async () => {
    const embedder = createOpenAIEmbeddings({
      baseURL: `${server.url}/v1`,
      apiKey: KEY,
      model: 'bge-small',
      dimensions: 8,
    });
    const vectors = await embedder.embed(['a', 'bbb', 'cc']);
    expect(vectors.map((vector) => vector[0])).toEqual([1, 3, 2]);
    expect(vectors.every((vector) => vector instanceof Float32Array && vector.length === 8)).toBe(
      true,
    );
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    // `dimensions` declares bge-small's size; only text-embedding-3 models take it as a parameter.
    expect(request?.body).toEqual({
      model: 'bge-small',
      input: ['a', 'bbb', 'cc'],
      encoding_format: 'float',
    });
    expect(embedder.id).toBe('openai:bge-small:8');
    expect(embedder.dimensions).toBe(8);
  });

  it('sends dimensions to shorten text-embedding-3 vectors', async () => {
    const embedder = createOpenAIEmbeddings({
      baseURL: `${server.url}/v1`,
      model: 'text-embedding-3-small',
      dimensions: 16,
    });
    const [vector] = await embedder.embed(['hello']);
    expect(vector?.length).toBe(16);
    expect(server.requests[0]?.body.dimensions).toBe(16);
  });

  it('splits batches longer than maxBatchSize and makes no call for no texts', async () => {
    const embedder = createOpenAIEmbeddings({
      baseURL: `${server.url}/v1`,
      model: 'bge-small',
      dimensions: 8,
      maxBatchSize: 2,
    });
    expect(embedder.maxBatchSize).toBe(2);
    expect(await embedder.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    const vectors = await embedder.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee']);
    expect(vectors.map((vector) => vector[0])).toEqual([1, 2, 3, 4, 5]);
    expect(server.requests.map((request) => request.body.input)).toEqual([
      ['a', 'bb'],
      ['ccc', 'dddd'],
      ['eeeee'],
    ]);
  });

  it('rejects vectors of the wrong size or missing ones with a ProviderError', async () => {
    const embedder = createOpenAIEmbeddings({
      baseURL: `${server.url}/v1`,
      model: 'bge-small',
      dimensions: 4,
    });
    await expect(embedder.embed(['a'])).rejects.toSatisfy(
      (error: unknown) => ProviderError.isInstance(error) && !error.retryable,
    );
    server.handle((_request, response) => sendJson(response, 200, { data: [] }));
    await expect(embedder.embed(['a'])).rejects.toThrow(/no vector for input 0/);
  });

  it('maps HTTP errors and aborts like the chat adapter', async () => {
    server.handle((_request, response) =>
      sendJson(
        response,
        503,
        { error: { message: 'overloaded', type: 'server_error' } },
        {
          'retry-after': '2',
        },
      ),
    );
    const embedder = createOpenAIEmbeddings({
      baseURL: `${server.url}/v1`,
      model: 'bge-small',
      dimensions: 8,
    });
    await expect(embedder.embed(['a'])).rejects.toSatisfy(
      (error: unknown) =>
        ProviderError.isInstance(error) &&
        error.status === 503 &&
        error.retryable &&
        error.retryAfterMs === 2000,
    );
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a'], { signal: controller.signal })).rejects.toSatisfy(
      AbortError.isInstance,
    );
  });

  it('knows OpenAI models and requires dimensions for others', () => {
    expect(createOpenAIEmbeddings({ apiKey: KEY }).dimensions).toBe(1536);
    expect(
      createOpenAIEmbeddings({ apiKey: KEY, model: 'text-embedding-3-large' }).dimensions,
    ).toBe(3072);
    const configPath = (action: () => unknown): string | undefined => {
      try {
        action();
      } catch (error) {
        return ConfigError.isInstance(error) ? error.issues[0]?.path : 'not a ConfigError';
      }
      return undefined;
    };
    expect(
      configPath(() => createOpenAIEmbeddings({ baseURL: `${server.url}/v1`, model: 'bge-small' })),
    ).toBe('dimensions');
    expect(configPath(() => createOpenAIEmbeddings({}))).toBe('apiKey');
  });
});
