import { afterAll, describe } from 'vitest';
import { createHashingEmbedder } from '../../../src/adapters/hashing/embedder.js';
import { createOllamaChat, createOllamaEmbeddings } from '../../../src/adapters/ollama/index.js';
import { testEmbeddingProvider, testLLMProvider } from '../../../src/testing/index.js';
import {
  deterministicAnswer,
  sendJson,
  sendStream,
  startLoopback,
  type Handler,
  type Loopback,
} from '../http/loopback.js';

// A loopback Ollama that answers every question the same way each time and embeds with the
// offline hashing embedder.

const hashing = createHashingEmbedder({ dimensions: 96 });

const handler: Handler = async (request, response) => {
  if (request.path === '/api/embed') {
    const vectors = await hashing.embed(request.body.input);
    sendJson(response, 200, { embeddings: vectors.map((vector) => Array.from(vector)) });
    return;
  }
  const pieces = deterministicAnswer(request.body);
  const done = {
    model: request.body.model,
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 40,
    eval_count: pieces.length,
  };
  if (!request.body.stream) {
    sendJson(response, 200, { ...done, message: { role: 'assistant', content: pieces.join('') } });
    return;
  }
  await sendStream(
    response,
    [
      ...pieces.map(
        (content) =>
          `${JSON.stringify({ model: request.body.model, message: { role: 'assistant', content }, done: false })}\n`,
      ),
      `${JSON.stringify({ ...done, message: { role: 'assistant', content: '' } })}\n`,
    ],
    { contentType: 'application/x-ndjson' },
  );
};

describe('Ollama adapters (loopback server)', () => {
  let server: Loopback | undefined;
  const host = async () => {
    server ??= await startLoopback(handler);
    return server.url;
  };

  afterAll(async () => {
    await server?.close();
  });

  testLLMProvider({
    title: 'createOllamaChat conformance',
    create: async () => createOllamaChat({ host: await host() }),
    deterministic: true,
  });

  testEmbeddingProvider({
    title: 'createOllamaEmbeddings conformance',
    create: async () =>
      createOllamaEmbeddings({ host: await host(), model: 'loopback-embed', dimensions: 96 }),
  });
});
