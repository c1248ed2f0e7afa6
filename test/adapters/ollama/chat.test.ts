import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createOllamaChat,
  normalizeOllamaHost,
  ollamaFinishReason,
} from '../../../src/adapters/ollama/index.js';
import { ProviderError } from '../../../src/errors/index.js';
import type { LLMRequest, LLMStreamPart } from '../../../src/ports/llm-provider.js';
import { collect } from '../../../src/testing/shared.js';
import {
  fixture,
  ndjsonLines,
  sendJson,
  sendStream,
  startLoopback,
  type Loopback,
} from '../http/loopback.js';
import { testProviderFailures } from '../http/provider-failures.js';

const REQUEST: LLMRequest = {
  system: 'Answer from the sources only.\n\nS1: Air scatters blue light.',
  messages: [
    { role: 'user', content: 'What colour is the sky?' },
    { role: 'assistant', content: 'Blue [source: S1].' },
    { role: 'user', content: 'Why is it blue?' },
  ],
  maxTokens: 300,
  temperature: 0.2,
};

const NDJSON = 'application/x-ndjson';
const STREAM = ndjsonLines(fixture('ollama-chat-stream.ndjson'));
const DELTAS = ['The sky', ' is blue', ' because air scatters blue light', ' [source: S1].'];

describe('createOllamaChat against a loopback server', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback();
  });

  afterEach(async () => {
    await server.close();
  });

  const create = (settings: Parameters<typeof createOllamaChat>[0] = {}) =>
    createOllamaChat({ host: server.url, ...settings });

  it('posts to /api/chat with real role messages and options', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('ollama-chat.json'))),
    );
    await create({ contextWindow: 16_384, keepAlive: '10m', options: { seed: 7 } }).generate(
      REQUEST,
    );
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/api/chat');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: REQUEST.system },
        { role: 'user', content: 'What colour is the sky?' },
        { role: 'assistant', content: 'Blue [source: S1].' },
        { role: 'user', content: 'Why is it blue?' },
      ],
      stream: false,
      options: { seed: 7, num_ctx: 16_384, temperature: 0.2, num_predict: 300 },
      keep_alive: '10m',
    });
  });

  it('parses a non-streamed answer with usage', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('ollama-chat.json'))),
    );
    expect(await create().generate(REQUEST)).toEqual({
      text: 'The sky is blue because air scatters blue light [source: S1].',
      finishReason: 'stop',
      usage: { inputTokens: 26, outputTokens: 12 },
    });
  });

  it('streams NDJSON deltas, then a finish part from the done line', async () => {
    server.handle((_request, response) => sendStream(response, STREAM, { contentType: NDJSON }));
    const parts = await collect(create().stream(REQUEST));
    expect(parts).toEqual([
      ...DELTAS.map((text) => ({ type: 'text-delta', text })),
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 26, outputTokens: 12 } },
    ]);
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(server.requests[0]?.body.options.num_ctx).toBe(8192);
  });

  it('reads a stream delivered in arbitrary byte pieces', async () => {
    const whole = STREAM.join('');
    const pieces: string[] = [];
    for (let index = 0; index < whole.length; index += 7)
      pieces.push(whole.slice(index, index + 7));
    server.handle((_request, response) => sendStream(response, pieces, { contentType: NDJSON }));
    const parts = await collect(create().stream(REQUEST));
    expect(parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('')).toBe(
      DELTAS.join(''),
    );
  });

  it('turns an error line into a ProviderError after the deltas before it', async () => {
    server.handle((_request, response) =>
      sendStream(response, [STREAM[0]!, '{"error":"model runner has unexpectedly stopped"}\n'], {
        contentType: NDJSON,
      }),
    );
    const parts: LLMStreamPart[] = [];
    let error: unknown;
    try {
      for await (const part of create().stream(REQUEST)) parts.push(part);
    } catch (caught) {
      error = caught;
    }
    expect(parts).toEqual([{ type: 'text-delta', text: 'The sky' }]);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).message).toContain('model runner has unexpectedly stopped');
  });

  it('sends an API key as a bearer token and caps num_predict by maxOutputTokens', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('ollama-chat.json'))),
    );
    const llm = create({ apiKey: 'ollama-key-123', maxOutputTokens: 100, model: 'qwen3:8b' });
    expect(llm.metadata).toEqual({
      provider: 'ollama',
      model: 'qwen3:8b',
      type: 'local',
      supportedModels: ['qwen3:8b'],
      contextWindow: 8192,
      maxOutputTokens: 100,
    });
    await llm.generate(REQUEST);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer ollama-key-123');
    expect(server.requests[0]?.body.options.num_predict).toBe(100);
  });

  it('normalises hosts written as OLLAMA_HOST is', () => {
    expect(normalizeOllamaHost('localhost')).toBe('http://localhost:11434');
    expect(normalizeOllamaHost('0.0.0.0')).toBe('http://127.0.0.1:11434');
    expect(normalizeOllamaHost('0.0.0.0:8080')).toBe('http://127.0.0.1:8080');
    expect(normalizeOllamaHost('http://gpu-box:11434/')).toBe('http://gpu-box:11434');
    expect(normalizeOllamaHost('https://ollama.com')).toBe('https://ollama.com');
    expect(normalizeOllamaHost('http://example.com:80')).toBe('http://example.com');
  });

  it('maps done reasons', () => {
    expect(ollamaFinishReason('stop')).toBe('stop');
    expect(ollamaFinishReason('length')).toBe('length');
    expect(ollamaFinishReason('unload')).toBe('other');
    expect(ollamaFinishReason(undefined)).toBe('stop');
  });
});

testProviderFailures({
  title: 'createOllamaChat failure matrix',
  provider: 'ollama',
  create: (url) => createOllamaChat({ host: url }),
  errorBody: (message) => ({ error: message }),
  streamPieces: STREAM,
  contentType: NDJSON,
  deltas: DELTAS,
  cut: { after: 2, deltas: DELTAS.slice(0, 2) },
  malformedPiece: '{"model":"llama3.2","message":{"role":"assistant","content":"oops"},\n',
  unknownPieces: [
    '{"model":"llama3.2","created_at":"2025-01-10T12:00:00Z","status":"loading model"}\n',
    '{"model":"llama3.2","message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}\n',
  ],
});
