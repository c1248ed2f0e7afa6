import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createOpenAIChat,
  openAIFinishReason,
  certaintyFromLogprobs,
} from '../../../src/adapters/openai/index.js';
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

const KEY = 'sk-test-openai-key-123456';

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

const STREAM = sseEvents(fixture('openai-chat-stream.sse'));
const DELTAS = ['The sky', ' is blue', ' because air scatters blue light', ' [source: S1].'];

function text(parts: readonly LLMStreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

describe('createOpenAIChat against a loopback server', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback();
  });

  afterEach(async () => {
    await server.close();
  });

  const create = (settings: Parameters<typeof createOpenAIChat>[0] = {}) =>
    createOpenAIChat({
      baseURL: `${server.url}/v1`,
      apiKey: KEY,
      model: 'gpt-4.1-mini',
      ...settings,
    });

  it('sends the system prompt first and the history as real role messages', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('openai-chat-completion.json'))),
    );
    await create({ organization: 'org-1', project: 'proj-1' }).generate(REQUEST);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['openai-organization']).toBe('org-1');
    expect(request?.headers['openai-project']).toBe('proj-1');
    expect(request?.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: REQUEST.system },
        { role: 'system', content: 'Summary of earlier turns: the user asked about colours.' },
        { role: 'user', content: 'What colour is the sky?' },
        { role: 'assistant', content: 'Blue [source: S1].' },
        { role: 'user', content: 'Why is it blue?' },
      ],
      max_tokens: 300,
      temperature: 0.2,
    });
  });

  it('parses text, finish reason, usage and logprob certainty of a completion', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('openai-chat-completion.json'))),
    );
    const plain = await create().generate(REQUEST);
    expect(plain).toEqual({
      text: 'The sky is blue because air scatters blue light [source: S1].',
      finishReason: 'stop',
      usage: { inputTokens: 58, outputTokens: 14 },
      certainty: expect.closeTo(Math.exp(-0.3), 12),
    });
    expect(server.requests[0]?.body.logprobs).toBeUndefined();
    await create({ logprobs: true }).generate(REQUEST);
    expect(server.requests[1]?.body.logprobs).toBe(true);
  });

  it('streams deltas, then one finish part with the usage of the final chunk', async () => {
    server.handle((_request, response) => sendStream(response, STREAM));
    const parts = await collect(create().stream(REQUEST));
    expect(parts).toEqual([
      ...DELTAS.map((delta) => ({ type: 'text-delta', text: delta })),
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 58, outputTokens: 14 } },
    ]);
    const [request] = server.requests;
    expect(request?.headers.accept).toBe('text/event-stream');
    expect(request?.body).toMatchObject({
      model: 'gpt-4.1-mini',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
    });
  });

  it('reports certainty = exp(mean token logprob) and maps finish_reason length', async () => {
    server.handle((_request, response) =>
      sendStream(response, sseEvents(fixture('openai-chat-stream-logprobs.sse'))),
    );
    const parts = await collect(create({ logprobs: true }).stream(REQUEST));
    expect(text(parts)).toBe('Blue.');
    const finish = parts[parts.length - 1];
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'length' });
    expect(finish?.type === 'finish' && finish.certainty).toBeCloseTo(Math.exp(-0.2), 10);
    expect(server.requests[0]?.body.logprobs).toBe(true);
  });

  it('sends max_completion_tokens to OpenAI (or when asked), capped by maxOutputTokens', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('openai-chat-completion.json'))),
    );
    await create({ maxTokensField: 'max_completion_tokens', maxOutputTokens: 100 }).generate(
      REQUEST,
    );
    expect(server.requests[0]?.body.max_completion_tokens).toBe(100);
    expect(server.requests[0]?.body.max_tokens).toBeUndefined();
    let sent: any;
    const onOpenAI = createOpenAIChat({
      apiKey: KEY,
      fetch: async (_url, init) => {
        sent = JSON.parse(String(init.body));
        return new Response(fixture('openai-chat-completion.json'), { status: 200 });
      },
    });
    await onOpenAI.generate(REQUEST);
    expect(sent.model).toBe('gpt-4.1-mini');
    expect(sent.max_completion_tokens).toBe(300);
    expect(onOpenAI.metadata).toEqual({
      provider: 'openai',
      model: 'gpt-4.1-mini',
      type: 'openai',
      supportedModels: expect.arrayContaining(['gpt-4.1-mini', 'gpt-4o']),
      contextWindow: 1_047_576,
      maxOutputTokens: 32_768,
    });
  });

  it('accepts a stream without [DONE] once a finish reason arrived (some compatible servers)', async () => {
    server.handle((_request, response) =>
      sendStream(
        response,
        STREAM.filter((event) => !event.includes('[DONE]')),
      ),
    );
    const parts = await collect(create().stream(REQUEST));
    expect(text(parts)).toBe(DELTAS.join(''));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('maps a content filter, a refusal and an error chunk', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, {
        choices: [{ message: { content: null, refusal: 'I cannot help.' }, finish_reason: 'stop' }],
      }),
    );
    expect(await create().generate(REQUEST)).toEqual({
      text: 'I cannot help.',
      finishReason: 'content-filter',
    });
    server.handle((_request, response) =>
      sendStream(response, [
        STREAM[1]!,
        `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } })}\n\n`,
      ]),
    );
    const parts: LLMStreamPart[] = [];
    const error = await (async () => {
      try {
        for await (const part of create().stream(REQUEST)) parts.push(part);
      } catch (caught) {
        return caught;
      }
    })();
    expect(text(parts)).toBe('The sky');
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain('The server had an error');
    expect(openAIFinishReason('content_filter')).toBe('content-filter');
    expect(openAIFinishReason('tool_calls')).toBe('other');
    expect(openAIFinishReason(null)).toBe('other');
  });

  it('works without a key for a compatible server, and lets headers and fetch be injected', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, JSON.parse(fixture('openai-chat-completion.json'))),
    );
    const urls: string[] = [];
    const llm = createOpenAIChat({
      baseURL: `${server.url}/v1/`,
      model: 'qwen2.5-7b-instruct',
      name: 'vllm',
      headers: { 'X-Tenant': 'acme' },
      fetch: (url, init) => {
        urls.push(url);
        return fetch(url, init);
      },
    });
    expect(llm.name).toBe('vllm');
    expect(llm.metadata).toEqual({
      provider: 'vllm',
      model: 'qwen2.5-7b-instruct',
      type: 'custom',
      supportedModels: ['qwen2.5-7b-instruct'],
      contextWindow: 8192,
    });
    await llm.generate(REQUEST);
    expect(urls).toEqual([`${server.url}/v1/chat/completions`]);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.headers['x-tenant']).toBe('acme');
  });

  it('rejects invalid settings with a ConfigError naming the setting', () => {
    const path = (action: () => unknown) => {
      try {
        action();
      } catch (error) {
        expect(ConfigError.isInstance(error)).toBe(true);
        return (error as ConfigError).issues[0]?.path;
      }
      return undefined;
    };
    expect(path(() => createOpenAIChat({}))).toBe('apiKey');
    expect(path(() => createOpenAIChat({ baseURL: 'http://127.0.0.1:1/v1' }))).toBe('model');
    expect(path(() => createOpenAIChat({ apiKey: KEY, baseURL: 'not a url' }))).toBe('baseURL');
    expect(path(() => createOpenAIChat({ apiKey: KEY, contextWindow: 0 }))).toBe('contextWindow');
    expect(path(() => createOpenAIChat({ apiKey: KEY }))).toBeUndefined();
  });

  it('rejects an empty conversation with a ValidationError before sending anything', async () => {
    await expect(create().generate({ messages: [] })).rejects.toSatisfy(ValidationError.isInstance);
    expect(server.requests).toEqual([]);
  });

  it('computes certainty from log-probabilities', () => {
    expect(certaintyFromLogprobs([])).toBeUndefined();
    expect(certaintyFromLogprobs([0, 0])).toBe(1);
    expect(certaintyFromLogprobs([-1, -3])).toBeCloseTo(Math.exp(-2), 12);
  });
});

testProviderFailures({
  title: 'createOpenAIChat failure matrix',
  provider: 'openai',
  create: (url, apiKey) =>
    createOpenAIChat({ baseURL: `${url}/v1`, apiKey, model: 'gpt-4.1-mini' }),
  errorBody: (message, type) => ({ error: { message, type, param: null, code: null } }),
  streamPieces: STREAM,
  contentType: 'text/event-stream',
  deltas: DELTAS,
  cut: { after: 3, deltas: DELTAS.slice(0, 2) },
  malformedPiece: 'data: {"id":"chatcmpl-x","choices":[{"index":0,"delta":{"content":"oops"\n\n',
  unknownPieces: [
    ': OPENROUTER PROCESSING\n\n',
    'event: keepalive\ndata: {}\n\n',
    'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[]},"finish_reason":null}],"usage":null}\n\n',
  ],
});
