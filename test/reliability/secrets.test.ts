/**
 * Secrets: an engine on `createOpenAIChat` with an API key, against a loopback server that
 * fails with 401, 500 and 429 and echoes the Authorization header in its error bodies. The
 * key must not appear in any error (message, stack, cause chain, properties), event, console
 * output, stored row (messages, learning trajectories and steps) or HTTP error response.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryLearningSink } from '../../src/adapters/memory/learning-sink.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createOpenAIChat } from '../../src/adapters/openai/index.js';
import { createChatEngine, type ChatEngine } from '../../src/engine.js';
import type { EngineEventName } from '../../src/events.js';
import { createChatHandler } from '../../src/http/index.js';
import { handbook } from '../fixtures/handbook.js';
import { sendJson, startLoopback, type Loopback } from '../adapters/http/loopback.js';
import { recordFigures } from './figures.js';

const KEY = 'sk-test-SECRET-1234567890';
/** Fragments that would betray a partly redacted key too. */
const NEEDLES = [KEY, 'SECRET-1234567890', '1234567890'];

const EVENTS: EngineEventName[] = [
  'session.created',
  'session.ended',
  'turn.started',
  'route',
  'retrieval',
  'guard',
  'citations',
  'confidence',
  'judge',
  'summary',
  'feedback',
  'learning',
  'retry',
  'breaker',
  'rateLimit',
  'turn.completed',
  'turn.failed',
  'metrics',
  'error',
];

/** JSON of anything, errors in full: name, message, stack, cause chain and own properties. */
function serialise(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, function replacer(_key, item: unknown) {
    if (typeof item === 'bigint') return String(item);
    if (typeof item === 'object' && item !== null) {
      if (seen.has(item)) return '[circular]';
      seen.add(item);
      if (item instanceof Error) {
        const out: Record<string, unknown> = {};
        for (const name of Object.getOwnPropertyNames(item)) {
          out[name] = (item as unknown as Record<string, unknown>)[name];
        }
        out['name'] = item.name;
        out['message'] = item.message;
        out['stack'] = item.stack;
        out['cause'] = item.cause;
        out['string'] = String(item);
        return out;
      }
      if (item instanceof Headers) {
        const headers: Record<string, string> = {};
        item.forEach((value, name) => void (headers[name] = value));
        return headers;
      }
    }
    return item;
  });
}

describe('secrets never leak', () => {
  let loopback: Loopback;
  const collected: { where: string; text: string }[] = [];
  const collect = (where: string, value: unknown): void =>
    void collected.push({ where, text: typeof value === 'string' ? value : serialise(value) });

  beforeAll(async () => {
    let call = 0;
    loopback = await startLoopback((request, response) => {
      const echoed = String(request.headers['authorization']);
      const status = [401, 500, 429][call++ % 3]!;
      sendJson(
        response,
        status,
        { error: { message: `rejected ${echoed}`, type: 'echo', authorization: echoed } },
        { 'x-echo-authorization': echoed, 'retry-after-ms': '1' },
      );
    });
  });
  afterAll(() => loopback.close());

  it('in errors, events, console output, stored rows and HTTP error responses', async () => {
    const consoleSpies = (['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map(
      (method) =>
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          collect(`console.${method}`, args);
        }),
    );
    const sessionStore = createMemorySessionStore();
    const learningSink = createMemoryLearningSink();
    const engine: ChatEngine = createChatEngine({
      llm: createOpenAIChat({ apiKey: KEY, baseURL: `${loopback.url}/v1`, model: 'echo-model' }),
      sessionStore,
      learningSink,
      retrieval: { minSimilarity: 0 },
      rewrite: { llm: 'never' },
      resilience: {
        retries: 1,
        minDelayMs: 1,
        maxDelayMs: 2,
        breaker: { failureThreshold: 100, windowMs: 60_000, cooldownMs: 20 },
      },
    });
    for (const name of EVENTS) engine.on(name, (event: unknown) => collect(`event ${name}`, event));
    await engine.ingest(handbook);
    const userId = 'user-secrets';
    const session = await engine.createSession({ userId });

    let errors = 0;
    try {
      for (let turn = 0; turn < 6; turn++) {
        const request = { sessionId: session.id, userId, message: `turn ${turn}: shipping time?` };
        if (turn % 2 === 0) {
          await engine.chat(request).then(
            (response) => collect('chat response', response),
            (error: unknown) => (errors++, collect('chat error', error)),
          );
        } else {
          const stream = engine.stream(request);
          for await (const part of stream) collect('stream part', part);
          await stream.response.then(
            (response) => collect('stream response', response),
            (error: unknown) => (errors++, collect('stream error', error)),
          );
        }
      }

      // The HTTP handler's error responses, JSON and SSE.
      const handler = createChatHandler(engine, {
        authenticate: () => ({ id: userId }),
        rateLimiter: false,
      });
      const created = await handler(
        new Request('http://cortexis.test/conversations', { method: 'POST' }),
      );
      const { id } = (await created.json()) as { id: string };
      for (const accept of ['application/json', 'text/event-stream']) {
        const response = await handler(
          new Request(`http://cortexis.test/conversations/${id}/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept },
            body: JSON.stringify({ content: 'how long does shipping take?' }),
          }),
        );
        if (accept === 'application/json') expect(response.status).toBeGreaterThanOrEqual(400);
        collect(`http ${accept} headers`, response.headers);
        collect(`http ${accept} body`, await response.text());
      }
      await engine.flush();

      // Every stored row.
      for (const stored of [session.id, id]) {
        collect('session row', await sessionStore.getSession(stored));
        collect('message rows', await sessionStore.listMessages(stored));
        const trajectoryId = (await sessionStore.getSession(stored))?.trajectoryId;
        if (trajectoryId) {
          collect('trajectory row', await learningSink.getTrajectory?.(trajectoryId));
          collect('step rows', await learningSink.listSteps?.(trajectoryId));
        }
      }
    } finally {
      for (const spy of consoleSpies) spy.mockRestore();
    }

    const leaks = collected.filter(({ text }) => NEEDLES.some((needle) => text.includes(needle)));
    recordFigures('secrets', {
      serverRequests: loopback.requests.length,
      turnErrors: errors,
      itemsScanned: collected.length,
      charactersScanned: collected.reduce((sum, { text }) => sum + text.length, 0),
      leaks: leaks.length,
    });
    // The key did reach the server (so the scan is meaningful) and failures were produced.
    expect(loopback.requests.some((r) => r.headers['authorization'] === `Bearer ${KEY}`)).toBe(
      true,
    );
    expect(errors).toBeGreaterThan(0);
    expect(collected.some(({ where }) => where.startsWith('event turn.failed'))).toBe(true);
    expect(leaks.map(({ where, text }) => `${where}: ${text.slice(0, 300)}`)).toEqual([]);
  }, 30_000);
});
