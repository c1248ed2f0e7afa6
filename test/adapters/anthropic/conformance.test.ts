import { afterAll, describe } from 'vitest';
import { createAnthropicChat } from '../../../src/adapters/anthropic/index.js';
import { testLLMProvider } from '../../../src/testing/index.js';
import {
  deterministicAnswer,
  sendJson,
  sendStream,
  startLoopback,
  type Handler,
  type Loopback,
} from '../http/loopback.js';

// A loopback Messages API that answers every question the same way each time.

const handler: Handler = async (request, response) => {
  const pieces = deterministicAnswer(request.body);
  if (!request.body.stream) {
    sendJson(response, 200, {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: pieces.join('') }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 40, output_tokens: pieces.length },
    });
    return;
  }
  const event = (type: string, body: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  await sendStream(response, [
    event('message_start', {
      message: {
        type: 'message',
        role: 'assistant',
        content: [],
        usage: { input_tokens: 40, output_tokens: 1 },
      },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('ping', {}),
    ...pieces.map((text) =>
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    ),
    event('content_block_stop', { index: 0 }),
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: pieces.length },
    }),
    event('message_stop', {}),
  ]);
};

describe('Anthropic adapter (loopback server)', () => {
  let server: Loopback | undefined;

  afterAll(async () => {
    await server?.close();
  });

  testLLMProvider({
    title: 'createAnthropicChat conformance',
    create: async () => {
      server ??= await startLoopback(handler);
      return createAnthropicChat({ baseURL: server.url, apiKey: 'sk-ant-test' });
    },
    deterministic: true,
  });
});
