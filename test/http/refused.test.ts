/**
 * The `refused` field on every HTTP surface: the JSON of `POST /conversations/:id/messages`,
 * the AI SDK UI stream's message metadata (read with the real `ai` package), and the `cortexis`
 * extension of the OpenAI-compatible routes (read with the real `openai` client), whole and
 * streamed; and in the CLI's `--json` answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerJson } from '../../src/cli/render.js';
import {
  createChatHandler,
  toNodeListener,
  type CortexisCompletionExtension,
  type CortexisUIDataTypes,
  type CortexisUIMessageMetadata,
} from '../../src/http/index.js';
import { createChatEngine, type ChatEngine, type EngineConfig } from '../../src/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

type CortexisUIMessage = UIMessage<CortexisUIMessageMetadata, CortexisUIDataTypes>;

const servers: Server[] = [];

async function serve(config: EngineConfig = {}): Promise<{ base: string; engine: ChatEngine }> {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  const handler = createChatHandler(engine, {
    basePath: '/api',
    openaiCompatible: true,
    authenticate: (request) => {
      const key =
        request.headers.get('x-user') ??
        request.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
      return key ? { id: key } : null;
    },
  });
  const server = createServer(toNodeListener(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, engine };
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const OFF_TOPIC = 'How do I bake sourdough bread?';
const QUESTION = 'What is the refund policy?';
const MODEL_REFUSAL = 'The provided sources do not contain an answer.';

let offline: { base: string; engine: ChatEngine };
let refusing: { base: string; engine: ChatEngine };

beforeAll(async () => {
  offline = await serve();
  refusing = await serve({ llm: createMockLLM({ responses: MODEL_REFUSAL }) });
});

async function postMessage(base: string, user: string, content: string) {
  const created = await fetch(`${base}/conversations`, {
    method: 'POST',
    headers: { 'x-user': user, 'content-type': 'application/json' },
    body: '{}',
  });
  const { id } = (await created.json()) as { id: string };
  const answer = await fetch(`${base}/conversations/${id}/messages`, {
    method: 'POST',
    headers: { 'x-user': user, 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { refused: unknown; guard: boolean };
}

describe('refused over HTTP', () => {
  it('is in the JSON answer of a conversation message: guard, model, or null', async () => {
    expect(await postMessage(offline.base, 'alice', OFF_TOPIC)).toMatchObject({
      guard: true,
      refused: { by: 'guard' },
    });
    expect(await postMessage(offline.base, 'alice', QUESTION)).toMatchObject({ refused: null });
    expect(await postMessage(refusing.base, 'bob', QUESTION)).toMatchObject({
      guard: false,
      refused: { by: 'model', reason: 'no-answer' },
    });
  });

  it("is in the AI SDK UI message's metadata", async () => {
    const ask = async (base: string, chatId: string, text: string) => {
      const transport = new DefaultChatTransport<CortexisUIMessage>({
        api: `${base}/ui/chat`,
        headers: { 'x-user': 'carol' },
      });
      const stream = await transport.sendMessages({
        chatId,
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }],
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      });
      let message: CortexisUIMessage | undefined;
      for await (const snapshot of readUIMessageStream<CortexisUIMessage>({
        stream: stream as ReadableStream<UIMessageChunk>,
      }))
        message = snapshot;
      return message!.metadata;
    };
    expect(await ask(offline.base, 'ui-1', OFF_TOPIC)).toMatchObject({ refused: { by: 'guard' } });
    expect(await ask(offline.base, 'ui-2', QUESTION)).toMatchObject({ refused: null });
    expect(await ask(refusing.base, 'ui-3', QUESTION)).toMatchObject({
      refused: { by: 'model', reason: 'no-answer' },
    });
  });

  it('is in the cortexis extension of the OpenAI routes, whole and streamed', async () => {
    const extension = (value: unknown) =>
      (value as { cortexis: CortexisCompletionExtension }).cortexis;
    const ask = async (base: string, content: string) => {
      const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'dave', maxRetries: 0 });
      const messages = [{ role: 'user' as const, content }];
      const whole = await openai.chat.completions.create({ model: 'cortexis', messages });
      const stream = await openai.chat.completions.create({
        model: 'cortexis',
        messages,
        stream: true,
      });
      let streamed: CortexisCompletionExtension | undefined;
      for await (const chunk of stream) {
        if (chunk.choices[0]?.finish_reason) streamed = extension(chunk);
      }
      return [extension(whole).refused, streamed?.refused];
    };
    const [guardWhole, guardStreamed] = await ask(offline.base, OFF_TOPIC);
    expect(guardWhole).toMatchObject({ by: 'guard' });
    expect(guardStreamed).toEqual(guardWhole);
    expect(await ask(offline.base, QUESTION)).toEqual([null, null]);
    const model = { by: 'model', reason: 'no-answer' };
    expect(await ask(refusing.base, QUESTION)).toEqual([model, model]);
  });
});

describe('refused in the CLI', () => {
  it("is in ask --json's answer", async () => {
    const guarded = await offline.engine.chat({ message: OFF_TOPIC, mode: 'query' });
    expect(answerJson(guarded, null)).toMatchObject({ guard: true, refused: { by: 'guard' } });
    const answered = await offline.engine.chat({ message: QUESTION, mode: 'query' });
    expect(answerJson(answered, 'retrieval')).toMatchObject({ refused: null });
    const refused = await refusing.engine.chat({ message: QUESTION, mode: 'query' });
    expect(answerJson(refused, 'retrieval')).toMatchObject({
      guard: false,
      refused: { by: 'model', reason: 'no-answer' },
    });
  });
});
