import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOllamaEmbeddings } from '../../../src/adapters/ollama/index.js';
import { ConfigError, ProviderError } from '../../../src/errors/index.js';
import { sendJson, startLoopback, type Loopback } from '../http/loopback.js';

describe('createOllamaEmbeddings against a loopback server', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback((request, response) => {
      const input: string[] = request.body.input;
      sendJson(response, 200, {
        model: request.body.model,
        embeddings: input.map((text) =>
          Array.from({ length: 768 }, (_, i) => (i ? 0.1 : text.length)),
        ),
        total_duration: 14143917,
        load_duration: 1019500,
        prompt_eval_count: 8,
      });
    });
  });

  afterEach(async () => {
    await server.close();
  });

  it('posts { model, input } to /api/embed and returns the vectors in order', async () => {
    const embedder = createOllamaEmbeddings({ host: server.url });
    expect(embedder.dimensions).toBe(768);
    expect(embedder.id).toBe('ollama:nomic-embed-text:768');
    const vectors = await embedder.embed(['a', 'bbb']);
    expect(vectors.map((vector) => vector[0])).toEqual([1, 3]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/api/embed');
    expect(request?.body).toEqual({ model: 'nomic-embed-text', input: ['a', 'bbb'] });
  });

  it('splits long batches and rejects a wrong vector count or size', async () => {
    const embedder = createOllamaEmbeddings({ host: server.url, maxBatchSize: 2 });
    expect((await embedder.embed(['a', 'b', 'c'])).length).toBe(3);
    expect(server.requests.map((request) => request.body.input)).toEqual([['a', 'b'], ['c']]);
    server.handle((_request, response) => sendJson(response, 200, { embeddings: [[1, 2]] }));
    await expect(embedder.embed(['a'])).rejects.toSatisfy(
      (error: unknown) => ProviderError.isInstance(error) && /2 dimensions/.test(error.message),
    );
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/1 vectors for 2 inputs/);
  });

  it('maps a missing model (404) to a non-retryable ProviderError with the server message', async () => {
    server.handle((_request, response) =>
      sendJson(response, 404, {
        error: 'model "nomic-embed-text" not found, try pulling it first',
      }),
    );
    const error = await createOllamaEmbeddings({ host: server.url })
      .embed(['a'])
      .catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).status).toBe(404);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain('try pulling it first');
  });

  it('knows common models (tags ignored) and requires dimensions for others', () => {
    expect(createOllamaEmbeddings({ model: 'mxbai-embed-large:latest' }).dimensions).toBe(1024);
    expect(createOllamaEmbeddings({ model: 'my-embedder', dimensions: 512 }).dimensions).toBe(512);
    try {
      createOllamaEmbeddings({ model: 'my-embedder' });
      expect.fail('should throw');
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).issues[0]?.path).toBe('dimensions');
    }
  });
});
