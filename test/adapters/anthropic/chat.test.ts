import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicFinishReason,
  createAnthropicChat,
  toAnthropicMessages,
} from '../../../src/adapters/anthropic/index.js';
import { ConfigError, ProviderError, ValidationError } from '../../../src/errors/index.js';
import type { LLMRequest, LLMStreamPart } from '../../../src/ports/llm-provider.js';
import { collect } from '../../../src/testing/shared.js';
import {
  fixture,
  sendJson,
  sendStream,
  sseEvents,
  startLoopback,
  type Loopback,
} from '../http/loopback.js';
import { testProviderFailures } from '../http/provider-failures.js';

const KEY = 'sk-ant-api03-test-key-0123456789';

const REQUEST: LLMRequest = {
  system: 'Answer from the sources only.\n\nS1: Air scatters blue light.',
  messages: [
    { role: 'system', content: 'Summary of earlier turns: the user asked about colours.' },
    { role: 'user', content: 'What colour is the sky?' },
    { role: 'assistant', content: 'Blue [source: S1].' },
    { role: 'user', content: 'Why is it blue?' },
  ],
  maxTokens: 300,
  temperature: 0.2,
};

const STREAM = sseEvents(fixture('anthropic-messages-stream.sse'));
const DELTAS = ['The sky', ' is blue', ' because air scatters blue light', ' [source: S1].'];

async function failure(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createAnthropicChat against a loopback server', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback();
  });

  afterEach(async () => {
    await server.close();
  });

  const create = (settings: Parameters<typeof createAnthropicChat>[0] = {}) =>
    createAnthropicChat({ baseURL: server.url, apiKey: KEY, ...settings });

  it('sends system as the top-level parameter and the history as user/assistant turns', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('anthropic-message.json'))),
    );
    await create().generate(REQUEST);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe(KEY);
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 300,
      system: `${REQUEST.system}\n\nSummary of earlier turns: the user asked about colours.`,
      messages: [
        { role: 'user', content: 'What colour is the sky?' },
        { role: 'assistant', content: 'Blue [source: S1].' },
        { role: 'user', content: 'Why is it blue?' },
      ],
      temperature: 0.2,
    });
  });

  it('parses the text blocks, stop reason and usage (cache reads count as input)', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('anthropic-message.json'))),
    );
    expect(await create().generate(REQUEST)).toEqual({
      text: 'The sky is blue because air scatters blue light [source: S1].',
      finishReason: 'stop',
      usage: { inputTokens: 58, outputTokens: 15 },
    });
  });

  it('streams text deltas, skipping pings, then a finish part with usage', async () => {
    server.handle((_request, response) => sendStream(response, STREAM));
    const parts = await collect(create().stream(REQUEST));
    expect(parts).toEqual([
      ...DELTAS.map((text) => ({ type: 'text-delta', text })),
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 58, outputTokens: 15 } },
    ]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, max_tokens: 300 });
    expect(server.requests[0]?.headers.accept).toBe('text/event-stream');
  });

  it('always sends max_tokens: the default, capped by the model output limit', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('anthropic-message.json'))),
    );
    const { maxTokens: _unused, ...noLimit } = REQUEST;
    await create().generate(noLimit);
    expect(server.requests[0]?.body.max_tokens).toBe(4096);
    await create({ maxOutputTokens: 1000 }).generate({ ...REQUEST, maxTokens: 5000 });
    expect(server.requests[1]?.body.max_tokens).toBe(1000);
    await create().generate({ ...REQUEST, temperature: 1.7 });
    expect(server.requests[2]?.body.temperature).toBe(1);
    expect(create().metadata).toEqual({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      type: 'anthropic',
      supportedModels: expect.arrayContaining(['claude-haiku-4-5', 'claude-sonnet-4-5']),
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
  });

  it('turns an overloaded_error event into a retryable ProviderError after the deltas', async () => {
    server.handle((_request, response) =>
      sendStream(response, [
        ...STREAM.slice(0, 4),
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ]),
    );
    const parts: LLMStreamPart[] = [];
    const error = await failure(async () => {
      for await (const part of create().stream(REQUEST)) parts.push(part);
    });
    expect(parts).toEqual([{ type: 'text-delta', text: 'The sky' }]);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).status).toBe(529);
    expect((error as ProviderError).message).toContain('Overloaded');
    server.handle((_request, response) =>
      sendStream(response, [
        'event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}\n\n',
      ]),
    );
    const invalid = await failure(() => collect(create().stream(REQUEST)));
    expect((invalid as ProviderError).retryable).toBe(false);
  });

  it('ignores non-text blocks and deltas (thinking, tool input)', async () => {
    server.handle((_request, response) =>
      sendStream(response, [
        STREAM[0]!,
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}\n\n',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
        ...STREAM.slice(1),
      ]),
    );
    const parts = await collect(create().stream(REQUEST));
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.text)).toEqual(
      DELTAS,
    );
  });

  it('needs a key for Anthropic itself but not for a proxy', () => {
    try {
      createAnthropicChat({});
      expect.fail('should throw');
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).issues[0]?.path).toBe('apiKey');
    }
    expect(createAnthropicChat({ baseURL: server.url }).name).toBe('anthropic');
  });

  it('rejects a conversation with no user or assistant message', async () => {
    const error = await failure(() =>
      create().generate({ messages: [{ role: 'system', content: 'only a summary' }] }),
    );
    expect(ValidationError.isInstance(error)).toBe(true);
    expect(server.requests).toEqual([]);
  });

  it('maps stop reasons', () => {
    expect(anthropicFinishReason('end_turn')).toBe('stop');
    expect(anthropicFinishReason('stop_sequence')).toBe('stop');
    expect(anthropicFinishReason('max_tokens')).toBe('length');
    expect(anthropicFinishReason('refusal')).toBe('content-filter');
    expect(anthropicFinishReason('tool_use')).toBe('other');
  });
});

describe('toAnthropicMessages', () => {
  it('merges consecutive same-role messages and starts with a user turn', () => {
    expect(
      toAnthropicMessages({
        messages: [
          { role: 'assistant', content: 'Hello, how can I help?' },
          { role: 'user', content: 'First.' },
          { role: 'system', content: 'Summary.' },
          { role: 'user', content: 'Second.' },
          { role: 'assistant', content: 'A.' },
          { role: 'assistant', content: 'B.' },
        ],
      }),
    ).toEqual({
      system: 'Summary.',
      messages: [
        { role: 'user', content: '(The conversation so far follows.)' },
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'First.\n\nSecond.' },
        { role: 'assistant', content: 'A.\n\nB.' },
      ],
    });
  });

  it('leaves system undefined when there is none', () => {
    expect(toAnthropicMessages({ messages: [{ role: 'user', content: 'Hi' }] })).toEqual({
      system: undefined,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });
});

testProviderFailures({
  title: 'createAnthropicChat failure matrix',
  provider: 'anthropic',
  create: (url, apiKey) => createAnthropicChat({ baseURL: url, apiKey }),
  errorBody: (message, type) => ({ type: 'error', error: { type, message } }),
  streamPieces: STREAM,
  contentType: 'text/event-stream',
  deltas: DELTAS,
  // message_start, content_block_start, ping, "The sky", " is blue" — then the cut.
  cut: { after: 5, deltas: DELTAS.slice(0, 2) },
  malformedPiece:
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"oops}\n\n',
  unknownPieces: [
    'event: future_event\ndata: {"type":"future_event","payload":{"x":1}}\n\n',
    ': comment line\n\n',
  ],
});
