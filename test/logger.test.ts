import { describe, expect, it } from 'vitest';
import { createChatEngine, ProviderError, type EngineConfig, type Logger } from '../src/index.js';
import { createMockLLM } from '../src/testing/index.js';
import { handbook } from './fixtures/handbook.js';

const QUESTION = 'What is the refund policy?';
const ANSWER = 'Refunds are issued within 14 days of the request [source: S1].';

interface LogEntry {
  readonly level: keyof Logger;
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

/** A pino-shaped logger that keeps what it is given. */
function recordingLogger(): Logger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const method =
    (level: keyof Logger) =>
    (fields: object, message?: string): void => {
      entries.push({ level, fields: fields as Record<string, unknown>, message });
    };
  return {
    entries,
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
  };
}

async function loggedEngine(config: EngineConfig = {}) {
  const logger = recordingLogger();
  const engine = createChatEngine({
    llm: createMockLLM({ responses: ANSWER }),
    logger,
    ...config,
  });
  await engine.ingest(handbook);
  return {
    engine,
    logger,
    find: (event: string) => logger.entries.filter((entry) => entry.fields.event === event),
  };
}

describe('logger', () => {
  it('logs a turn: debug stages, info on completion, structured fields, no message text', async () => {
    const { engine, logger, find } = await loggedEngine();
    const ingested = find('metrics');
    expect(ingested).toEqual([
      {
        level: 'info',
        message: 'documents ingested',
        fields: expect.objectContaining({
          event: 'metrics',
          documents: 3,
          chunks: expect.any(Number),
        }),
      },
    ]);

    const session = await engine.createSession({ userId: 'u1' });
    const reply = await engine.chat({ sessionId: session.id, message: QUESTION });

    expect(find('session.created')).toEqual([
      {
        level: 'debug',
        message: 'session created',
        fields: { event: 'session.created', sessionId: session.id },
      },
    ]);
    expect(find('turn.started')[0]).toMatchObject({
      level: 'debug',
      fields: { turnId: reply.messageId, sessionId: session.id },
    });
    expect(find('route')[0]).toMatchObject({ level: 'debug', message: 'turn routed' });
    expect(find('retrieval')[0]).toMatchObject({
      level: 'debug',
      message: 'sources retrieved',
      fields: {
        turnId: reply.messageId,
        sources: expect.any(Number),
        topScore: expect.any(Number),
      },
    });
    expect(find('confidence')[0]).toMatchObject({
      level: 'debug',
      fields: { level: reply.confidence.level, overall: reply.confidence.overall },
    });
    expect(find('turn.completed')).toEqual([
      {
        level: 'info',
        message: 'turn completed',
        fields: {
          event: 'turn.completed',
          turnId: reply.messageId,
          sessionId: session.id,
          sources: reply.sources.length,
          guard: false,
          durationMs: expect.any(Number),
        },
      },
    ]);
    // Ids, counts and scores only: neither the question nor the documents nor the answer.
    const logged = JSON.stringify(logger.entries);
    expect(logged).not.toMatch(/refund policy|14 days|Refunds are/i);
    expect(logger.entries.every((entry) => typeof entry.message === 'string')).toBe(true);
  });

  it('logs a failed turn as an error, a refused request as a warning', async () => {
    const { engine, find } = await loggedEngine({
      llm: createMockLLM({
        responses: new ProviderError('upstream exploded', { provider: 'mock', retryable: false }),
      }),
    });
    await expect(engine.chat({ message: QUESTION, mode: 'query' })).rejects.toThrow();
    await expect(engine.chat({ message: '', mode: 'query' })).rejects.toThrow();
    const failed = find('turn.failed');
    expect(failed.map((entry) => [entry.level, entry.fields.code])).toEqual([
      ['error', 'provider_error'],
      ['warn', 'validation_error'],
    ]);
    expect(failed[0]!.fields).toMatchObject({
      retryable: false,
      err: expect.objectContaining({ name: 'ProviderError' }),
    });
  });

  it('warns on retries and rate limits', async () => {
    const { engine, find } = await loggedEngine({
      llm: createMockLLM({
        responses: [new ProviderError('busy', { provider: 'mock', status: 503 }), ANSWER],
      }),
      resilience: { minDelayMs: 0, maxDelayMs: 0 },
      rateLimit: { enabled: true, limit: 1, flood: { enabled: false } },
    });
    await engine.chat({ message: QUESTION, mode: 'query', userId: 'u1' });
    await expect(engine.chat({ message: QUESTION, mode: 'query', userId: 'u1' })).rejects.toThrow();

    expect(find('retry')).toEqual([
      {
        level: 'warn',
        message: 'provider call retried',
        fields: expect.objectContaining({ provider: 'mock', operation: 'generate', attempt: 1 }),
      },
    ]);
    expect(find('rateLimit')).toEqual([
      {
        level: 'warn',
        message: 'rate limited',
        fields: expect.objectContaining({
          scope: 'engine',
          reason: 'window',
          retryAfterMs: expect.any(Number),
        }),
      },
    ]);
    expect(find('turn.failed')[0]).toMatchObject({
      level: 'warn',
      fields: { code: 'rate_limited' },
    });
  });

  it('never breaks a turn when the logger throws', async () => {
    const broken: Logger = {
      debug: () => {
        throw new Error('disk full');
      },
      info: () => {
        throw new Error('disk full');
      },
      warn: () => undefined,
      error: () => undefined,
    };
    const engine = createChatEngine({ llm: createMockLLM({ responses: ANSWER }), logger: broken });
    await engine.ingest(handbook);
    const reply = await engine.chat({ message: QUESTION, mode: 'query' });
    expect(reply.text).toBe(ANSWER);
  });
});
