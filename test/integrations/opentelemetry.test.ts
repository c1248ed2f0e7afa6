import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
// The SDK's synchronous context manager (a dependency of sdk-trace-base): the weakest kind,
// with no async propagation — the turn span must find its parent at the call itself.
import { StackContextManager } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  createChatEngine,
  ProviderError,
  type ChatEngine,
  type EngineConfig,
} from '../../src/index.js';
import { openTelemetryTracer } from '../../src/integrations/opentelemetry/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

// Every stage helper passes through, recording how it was called (the untraced path).
vi.mock('../../src/util/tracing.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/util/tracing.js')>();
  return {
    ...actual,
    inSpan: vi.fn(actual.inSpan),
    inSpanSync: vi.fn(actual.inSpanSync),
    traceOperation: vi.fn(actual.traceOperation),
  };
});
const tracing = await import('../../src/util/tracing.js');

const QUESTION = 'What is the refund policy?';
const ANSWER = 'Refunds are issued within 14 days of the request [source: S1].';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new StackContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  contextManager.disable();
  context.disable();
});
afterEach(() => {
  exporter.reset();
  vi.clearAllMocks();
});

async function tracedEngine(config: EngineConfig = {}, recordContent = false) {
  const llm = createMockLLM({
    responses: { text: ANSWER, usage: { inputTokens: 321, outputTokens: 17 } },
  });
  const engine = createChatEngine({
    llm,
    tracer: openTelemetryTracer(provider.getTracer('test'), { recordContent }),
    ...config,
  });
  await engine.ingest(handbook);
  exporter.reset();
  return { engine, llm };
}

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((span) => span.name === name);
const one = (name: string): ReadableSpan => {
  const found = named(name);
  expect(found, `one span named ${name}`).toHaveLength(1);
  return found[0]!;
};
const childrenOf = (parent: ReadableSpan): ReadableSpan[] =>
  spans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
const allAttributeText = (): string =>
  JSON.stringify(spans().map((span) => [span.name, span.attributes, span.events]));

async function turn(engine: ChatEngine, userId = 'u1') {
  const session = await engine.createSession({ userId });
  exporter.reset();
  const reply = await engine.chat({ sessionId: session.id, message: QUESTION });
  return { session, reply };
}

describe('openTelemetryTracer: a turn', () => {
  it('is one cortexis.turn span with a child span per stage, in one trace', async () => {
    const { engine } = await tracedEngine();
    await turn(engine);

    const root = one('cortexis.turn');
    expect(root.parentSpanContext).toBeUndefined();
    const children = childrenOf(root);
    expect(children.map((span) => span.name).sort()).toEqual(
      [
        'cortexis.session',
        'cortexis.persist', // the user message
        'cortexis.remember',
        'cortexis.route',
        'cortexis.rewrite',
        'retrieval default',
        'cortexis.guard',
        'cortexis.recall',
        'cortexis.pack',
        'chat mock-model',
        'cortexis.judge',
        'cortexis.score',
        'cortexis.persist', // the answer
        'cortexis.learn',
      ].sort(),
    );
    // Every span of the turn is in its trace and ended; nothing else was recorded.
    expect(spans()).toHaveLength(children.length + 1);
    for (const span of spans()) {
      expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(span.ended).toBe(true);
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    }
    // Stages run in pipeline order.
    const started = (name: string) => {
      const [seconds, nanos] = one(name).startTime;
      return seconds * 1e9 + nanos;
    };
    expect(started('cortexis.route')).toBeLessThanOrEqual(started('retrieval default'));
    expect(started('retrieval default')).toBeLessThanOrEqual(started('chat mock-model'));
    expect(started('chat mock-model')).toBeLessThanOrEqual(started('cortexis.judge'));
  });

  it('carries GenAI and cortexis attributes with the values of the reply', async () => {
    const { engine } = await tracedEngine();
    const routes: { route: string; k: number }[] = [];
    engine.on('route', (event) => routes.push(event));
    const { session, reply } = await turn(engine);
    expect(reply.sources.length).toBeGreaterThan(0);

    const root = one('cortexis.turn');
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.attributes).toMatchObject({
      'cortexis.turn.id': reply.messageId,
      'gen_ai.conversation.id': session.id,
      'gen_ai.provider.name': 'mock',
      'gen_ai.request.model': 'mock-model',
      'cortexis.mode': 'chat',
      'cortexis.streaming': false,
      'cortexis.route': routes[0]!.route,
      'cortexis.retrieval.k': routes[0]!.k,
      'cortexis.source.count': reply.sources.length,
      'cortexis.guard': false,
      'cortexis.status': 'complete',
      'cortexis.confidence.level': reply.confidence.level,
      'cortexis.confidence.value': reply.confidence.overall,
      'cortexis.grounding.supported_ratio': reply.grounding!.supportedRatio,
      'cortexis.citations.removed': 0,
    });
    expect(root.attributes['cortexis.retrieval.top_score']).toBeGreaterThan(0);

    const generate = one('chat mock-model');
    expect(generate.kind).toBe(SpanKind.CLIENT);
    expect(generate.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'mock',
      'gen_ai.request.model': 'mock-model',
      'gen_ai.conversation.id': session.id,
      'gen_ai.request.stream': false,
      'gen_ai.request.max_tokens': 512,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.usage.input_tokens': 321,
      'gen_ai.usage.output_tokens': 17,
      'gen_ai.response.finish_reasons': ['stop'],
      'cortexis.stage': 'generate',
      'cortexis.source.count': reply.sources.length,
    });
    // Token usage is on the model call only, so backends summing gen_ai.usage.* count it once.
    expect(root.attributes['gen_ai.usage.input_tokens']).toBeUndefined();

    const retrieval = one('retrieval default');
    expect(retrieval.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'default',
      'gen_ai.retrieval.top_k': routes[0]!.k,
      'cortexis.stage': 'retrieve',
      'cortexis.retrieval.top_score': root.attributes['cortexis.retrieval.top_score'],
    });
    expect(retrieval.attributes['cortexis.source.count']).toBeGreaterThanOrEqual(
      reply.sources.length,
    );
    expect(one('cortexis.judge').attributes).toMatchObject({
      'cortexis.grounding.supported_ratio': reply.grounding!.supportedRatio,
      'cortexis.judge.blocked': false,
    });
    expect(one('cortexis.score').attributes).toMatchObject({
      'cortexis.confidence.level': reply.confidence.level,
      'cortexis.confidence.value': reply.confidence.overall,
    });
    expect(
      named('cortexis.persist').map((span) => span.attributes['cortexis.message.role']),
    ).toEqual(['user', 'assistant']);
  });

  it('keeps message and document text out of spans unless recordContent is set', async () => {
    const { engine } = await tracedEngine();
    await turn(engine);
    const text = allAttributeText();
    expect(text).not.toContain('refund policy');
    expect(text).not.toContain('14 days');
    expect(text).not.toContain('gen_ai.input.messages');

    const recording = await tracedEngine({}, true);
    await turn(recording.engine);
    const generate = one('chat mock-model');
    const input = JSON.parse(String(generate.attributes['gen_ai.input.messages']));
    expect(input.at(-1)).toEqual({ role: 'user', parts: [{ type: 'text', content: QUESTION }] });
    expect(JSON.parse(String(generate.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: ANSWER }] },
    ]);
    // The document text travels in the user message before the question, not the system prompt.
    expect(JSON.stringify(input.at(-2))).toContain('14 days');
    expect(String(generate.attributes['gen_ai.system_instructions'])).not.toContain('14 days');
    const retrieval = one('retrieval default');
    expect(retrieval.attributes['gen_ai.retrieval.query.text']).toBe(QUESTION);
    const documents = JSON.parse(String(retrieval.attributes['gen_ai.retrieval.documents']));
    expect(documents[0]).toEqual({ id: expect.any(String), score: expect.any(Number) });
  });

  it('records a failing provider on the model span and the turn span', async () => {
    const llm = createMockLLM({
      responses: new ProviderError('upstream exploded', { provider: 'mock', retryable: false }),
    });
    const engine = createChatEngine({
      llm,
      tracer: openTelemetryTracer(provider.getTracer('test')),
    });
    await engine.ingest(handbook);
    exporter.reset();
    await expect(engine.chat({ message: QUESTION, mode: 'query' })).rejects.toMatchObject({
      code: 'provider_error',
    });

    for (const span of [one('chat mock-model'), one('cortexis.turn')]) {
      expect(span.status.code, span.name).toBe(SpanStatusCode.ERROR);
      expect(span.status.message).toContain('upstream exploded');
      expect(span.attributes['error.type']).toBe('provider_error');
      const exception = span.events.find((event) => event.name === 'exception');
      // The SDK names the exception by its `code`: cortexis' stable error code.
      expect(exception?.attributes?.['exception.type']).toBe('provider_error');
      expect(exception?.attributes?.['exception.message']).toContain('upstream exploded');
    }
    // The stages that ran before it are fine; nothing ran after it.
    expect(one('retrieval default').status.code).not.toBe(SpanStatusCode.ERROR);
    expect(named('cortexis.judge')).toHaveLength(0);
    expect(spans().every((span) => span.ended)).toBe(true);
  });

  it('records a refused request on the turn span', async () => {
    const { engine } = await tracedEngine();
    await expect(engine.chat({ message: '' })).rejects.toMatchObject({
      code: 'validation_error',
    });
    const root = one('cortexis.turn');
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes['error.type']).toBe('validation_error');
  });

  it('spans a streamed turn, with the time to the first chunk', async () => {
    const { engine } = await tracedEngine();
    const stream = engine.stream({ message: QUESTION, mode: 'query' });
    const deltas: string[] = [];
    for await (const part of stream) if (part.type === 'text-delta') deltas.push(part.text);
    expect(deltas.join('')).toBe(ANSWER);

    const root = one('cortexis.turn');
    expect(root.attributes['cortexis.streaming']).toBe(true);
    expect(root.attributes['cortexis.mode']).toBe('query');
    expect(root.attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(named('cortexis.session')).toHaveLength(0); // a stateless query loads none
    const generate = one('chat mock-model');
    expect(generate.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(generate.attributes).toMatchObject({
      'gen_ai.request.stream': true,
      'gen_ai.usage.output_tokens': 17,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(generate.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);
  });

  it("makes the caller's current span the turn span's parent (a host's request span)", async () => {
    const { engine } = await tracedEngine();
    const host = provider.getTracer('host').startSpan('POST /chat');
    const reply = await context.with(trace.setSpan(context.active(), host), () =>
      engine.chat({ message: QUESTION, mode: 'query' }),
    );
    host.end();
    expect(reply.sources.length).toBeGreaterThan(0);
    const root = one('cortexis.turn');
    expect(root.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
    expect(root.spanContext().traceId).toBe(host.spanContext().traceId);

    // Streams too: the span starts when `stream` is called.
    exporter.reset();
    const other = provider.getTracer('host').startSpan('GET /stream');
    const stream = context.with(trace.setSpan(context.active(), other), () =>
      engine.stream({ message: QUESTION, mode: 'query' }),
    );
    await stream.response;
    other.end();
    expect(one('cortexis.turn').parentSpanContext?.spanId).toBe(other.spanContext().spanId);
  });

  it('makes a stage span current while it runs, for instrumentation below it', async () => {
    const tracer = openTelemetryTracer(provider.getTracer('test'));
    const span = tracer.startSpan('cortexis.stage');
    const active = tracer.withSpan!(span, () => trace.getActiveSpan()?.spanContext().spanId);
    span.end();
    span.end(); // a second end is ignored
    expect(active).toBe(one('cortexis.stage').spanContext().spanId);
  });
});

describe('openTelemetryTracer: search and ingest', () => {
  it('spans engine.search as a retrieval and engine.ingest', async () => {
    const { engine } = await tracedEngine();
    const hits = await engine.search(QUESTION, { k: 2 });
    const search = one('retrieval default');
    expect(search.parentSpanContext).toBeUndefined();
    expect(search.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'default',
      'gen_ai.retrieval.top_k': 2,
      'cortexis.stage': 'search',
      'cortexis.source.count': hits.length,
      'cortexis.retrieval.top_score': hits[0]!.score,
    });
    expect(allAttributeText()).not.toContain('refund');

    exporter.reset();
    const result = await engine.ingest([{ id: 'extra', text: 'Opening hours are 9 to 5.' }]);
    expect(one('cortexis.ingest').attributes).toMatchObject({
      'cortexis.ingest.documents': 1,
      'cortexis.ingest.chunks': result.chunks,
      'gen_ai.data_source.id': 'default',
    });
  });
});

describe('without a tracer', () => {
  it('starts no span and builds no span attributes', async () => {
    // Even with a global OpenTelemetry provider registered, cortexis only traces when asked.
    const getTracer = vi.spyOn(provider, 'getTracer');
    trace.setGlobalTracerProvider(provider);
    try {
      const engine = createChatEngine({ llm: createMockLLM({ responses: ANSWER }) });
      await engine.ingest(handbook);
      await turn(engine);
      for await (const _ of engine.stream({ message: QUESTION, mode: 'query' }));
      await engine.search(QUESTION);
      await engine.chat({ message: '' }).catch(() => undefined);
    } finally {
      trace.disable();
    }
    expect(getTracer).not.toHaveBeenCalled();
    expect(spans()).toHaveLength(0);
    // Every stage went through the helpers without a scope: no span, and the attribute
    // builders (options given as functions) were never called.
    const inSpan = vi.mocked(tracing.inSpan);
    const inSpanSync = vi.mocked(tracing.inSpanSync);
    const traceOperation = vi.mocked(tracing.traceOperation);
    expect(inSpan.mock.calls.length).toBeGreaterThan(10);
    expect(inSpanSync.mock.calls.length).toBeGreaterThan(1);
    expect(traceOperation.mock.calls.length).toBe(3); // the three turns
    for (const [scope] of [...inSpan.mock.calls, ...inSpanSync.mock.calls]) {
      expect(scope).toBeUndefined();
    }
    for (const [tracer] of traceOperation.mock.calls) expect(tracer).toBeUndefined();
  });

  it('rejects a tracer or logger that is not one', () => {
    expect(() => createChatEngine({ tracer: {} as never })).toThrow(ConfigError);
    expect(() => createChatEngine({ logger: { info: () => undefined } as never })).toThrow(
      /logger/,
    );
  });
});
