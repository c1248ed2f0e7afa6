import { afterAll, describe } from 'vitest';
import { createHashingEmbedder } from '../../../src/adapters/hashing/embedder.js';
import { createOpenAIChat, createOpenAIEmbeddings } from '../../../src/adapters/openai/index.js';
import { testEmbeddingProvider, testLLMProvider } from '../../../src/testing/index.js';
import {
  deterministicAnswer,
  sendJson,
  sendStream,
  startLoopback,
  type Handler,
  type Loopback,
} from '../http/loopback.js';

// A loopback OpenAI-compatible server that answers every question the same way each time
// (and embeds with the offline hashing embedder), so the conformance suites run offline.

const hashing = createHashingEmbedder({ dimensions: 64 });

const handler: Handler = async (request, response) => {
  if (request.path === '/v1/embeddings') {
    const vectors = await hashing.embed(request.body.input);
    sendJson(response, 200, {
      data: vectors.map((vector, index) => ({ index, embedding: Array.from(vector) })),
    });
    return;
  }
  const pieces = deterministicAnswer(request.body);
  const usage = { prompt_tokens: 40, completion_tokens: pieces.length };
  if (!request.body.stream) {
    sendJson(response, 200, {
      choices: [{ message: { content: pieces.join('') }, finish_reason: 'stop' }],
      usage,
    });
    return;
  }
  const chunk = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;
  await sendStream(response, [
    ...pieces.map((text) =>
      chunk({ choices: [{ delta: { content: text }, finish_reason: null }] }),
    ),
    chunk({ choices: [{ delta: {}, finish_reason: 'stop' }] }),
    chunk({ choices: [], usage }),
    'data: [DONE]\n\n',
  ]);
};

describe('OpenAI adapters (loopback server)', () => {
  let server: Loopback | undefined;
  const url = async () => {
    server ??= await startLoopback(handler);
    return `${server.url}/v1`;
  };

  afterAll(async () => {
    await server?.close();
  });

  testLLMProvider({
    title: 'createOpenAIChat conformance',
    create: async () => createOpenAIChat({ baseURL: await url(), model: 'loopback-model' }),
    deterministic: true,
  });

  testEmbeddingProvider({
    title: 'createOpenAIEmbeddings conformance',
    create: async () =>
      createOpenAIEmbeddings({ baseURL: await url(), model: 'loopback-embed', dimensions: 64 }),
  });
});
