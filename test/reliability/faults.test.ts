/**
 * Provider faults: 1,000 turns (chat and stream), 20 at a time over 50 sessions, through a
 * scripted model that fails about 30 % of its calls (500s, 429 with Retry-After, timeouts,
 * streams cut mid-way, garbage output, slow first chunk) plus one hard outage that must open
 * the circuit breaker. Zero-targets: no unhandled rejection, no untyped error, no user
 * message lost; the breaker opens and closes again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createChatEngine } from '../../src/engine.js';
import { CortexisError, ProviderError, TimeoutError } from '../../src/errors/index.js';
import type { BreakerEvent } from '../../src/events.js';
import type { ChatResponse } from '../../src/types.js';
import { createMockLLM, type MockLLMResponse } from '../../src/testing/mock-llm.js';
import { handbook } from '../fixtures/handbook.js';
import { seededRandom } from '../util/helpers.js';
import { recordFigures, runPool } from './figures.js';

const TURNS = 1_000;
const CONCURRENCY = 20;
const SESSIONS = 50;
const FAULT_RATE = 0.3;
/**
 * Model calls with these indexes all fail with 500: a hard outage that must open the breaker.
 * The breaker counts calls that failed after their retries (3 attempts each), so the outage
 * spans enough calls for five turns in a row to fail whatever the interleaving.
 */
const OUTAGE = { from: 400, to: 520 };

const ANSWER = 'Standard shipping takes 3 to 5 business days [source: S1].';

/** Garbage a broken model or proxy may return: bad tags, control characters, markup, nothing. */
const GARBAGE = [
  '',
  '   \n\t ',
  '\u0000\u0001\uFFFD{"choices": [ {"delta": ',
  'Shipping [source: S99] takes [source: S0] time [source: ] [source: S1',
  '<|im_end|>data: {"error": "upstream"}\n\ndata: [DONE]',
  '\uD800 lone surrogate and [source: S1] a valid tag',
  'x'.repeat(20_000),
];

type Fault = 'none' | '500' | '429' | 'timeout' | 'cut' | 'garbage' | 'slow' | 'outage';

function script(random: () => number, faults: Record<Fault, number>) {
  return (_request: unknown, callIndex: number): MockLLMResponse => {
    const fault: Fault =
      callIndex >= OUTAGE.from && callIndex < OUTAGE.to ? 'outage' : pickFault(random);
    faults[fault]++;
    switch (fault) {
      case 'outage':
      case '500':
        return new ProviderError('upstream returned 500', { provider: 'mock', status: 500 });
      case '429':
        return new ProviderError('rate limited', {
          provider: 'mock',
          status: 429,
          retryAfterMs: 2,
        });
      case 'timeout':
        return new TimeoutError('model call timed out', 50);
      case 'cut':
        return {
          chunks: ['Standard shipping ', 'takes 3'],
          errorAfter: new ProviderError('stream cut', { provider: 'mock', retryable: true }),
        };
      case 'garbage':
        return GARBAGE[Math.floor(random() * GARBAGE.length)]!;
      case 'slow':
        return { text: ANSWER, delayMs: 1 + Math.floor(random() * 4) };
      case 'none':
        return ANSWER;
    }
  };
}

/** Slow first chunk counts as a normal answer, not a fault: ~30 % of calls fail or misbehave. */
function pickFault(random: () => number): Fault {
  const roll = random();
  if (roll >= FAULT_RATE) return random() < 0.1 ? 'slow' : 'none';
  const kinds: Fault[] = ['500', '429', 'timeout', 'cut', 'garbage'];
  return kinds[Math.floor((roll / FAULT_RATE) * kinds.length)]!;
}

describe(`provider faults: ${TURNS} turns, concurrency ${CONCURRENCY}, ${SESSIONS} sessions`, () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  beforeEach(() => void process.on('unhandledRejection', onUnhandled));
  afterEach(() => void process.off('unhandledRejection', onUnhandled));

  it('answers, degrades or fails typed; loses no user message; breaker opens and recovers', async () => {
    const faults: Record<Fault, number> = {
      none: 0,
      '500': 0,
      '429': 0,
      timeout: 0,
      cut: 0,
      garbage: 0,
      slow: 0,
      outage: 0,
    };
    const llm = createMockLLM({ responses: script(seededRandom(8), faults) });
    const sessionStore = createMemorySessionStore();
    const engine = createChatEngine({
      llm,
      sessionStore,
      // Every turn calls the model: no guard answers, no model-written search rewrites.
      retrieval: { minSimilarity: 0 },
      rewrite: { llm: 'never' },
      resilience: {
        retries: 2,
        minDelayMs: 1,
        maxDelayMs: 5,
        breaker: { failureThreshold: 5, windowMs: 60_000, cooldownMs: 20 },
      },
    });
    const breaker: BreakerEvent[] = [];
    engine.on('breaker', (event) => void breaker.push(event));
    await engine.ingest(handbook);
    const userId = 'user-faults';
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, () => engine.createSession({ userId })),
    );
    const messageOf = (index: number) =>
      `turn ${index} in session ${index % SESSIONS}: how long does shipping take?`;

    let streamErrorParts = 0;
    const started = Date.now();
    const results = await runPool(TURNS, CONCURRENCY, async (index): Promise<ChatResponse> => {
      const request = {
        sessionId: sessions[index % SESSIONS]!.id,
        userId,
        message: messageOf(index),
      };
      if (index % 2 === 0) return engine.chat(request);
      const stream = engine.stream(request);
      for await (const part of stream) if (part.type === 'error') streamErrorParts++;
      return stream.response;
    });
    await engine.flush();
    const elapsedMs = Date.now() - started;

    let answered = 0;
    let degraded = 0;
    let typed = 0;
    let invalidCitations = 0;
    const untyped: unknown[] = [];
    for (const result of results) {
      if (result.status === 'fulfilled') {
        // Garbage tags (`[source: S99]`, `[source: S0]`) never reach the client.
        for (const match of result.value.text.matchAll(/\[source:\s*S(\d+)\s*\]/gi)) {
          const label = Number(match[1]);
          if (label < 1 || label > result.value.sources.length) invalidCitations++;
        }
        if (result.value.status === 'degraded') degraded++;
        else answered++;
      } else if (CortexisError.isInstance(result.reason)) typed++;
      else untyped.push(result.reason);
    }

    // Every user message sent is stored, in its session, exactly once.
    let lost = 0;
    let duplicated = 0;
    for (const [position, session] of sessions.entries()) {
      const stored = (await sessionStore.listMessages(session.id))
        .filter((message) => message.role === 'user')
        .map((message) => message.content);
      for (let index = position; index < TURNS; index += SESSIONS) {
        const copies = stored.filter((content) => content === messageOf(index)).length;
        if (copies === 0) lost++;
        if (copies > 1) duplicated++;
      }
    }

    const opened = breaker.findIndex((event) => event.state === 'open');
    const recovered =
      opened >= 0 && breaker.slice(opened + 1).some((event) => event.state === 'closed');
    const modelCalls = llm.calls.length;
    const injected = modelCalls - faults.none - faults.slow;
    recordFigures('provider-faults', {
      turns: TURNS,
      answered,
      degraded,
      typedErrors: typed,
      untypedErrors: untyped.length,
      invalidCitations,
      streamErrorParts,
      unhandledRejections: unhandled.length,
      userMessagesLost: lost,
      userMessagesDuplicated: duplicated,
      modelCalls,
      faultRate: Number((injected / modelCalls).toFixed(3)),
      ...Object.fromEntries(
        Object.entries(faults).map(([kind, count]) => [`fault.${kind}`, count]),
      ),
      breakerOpened: breaker.filter((event) => event.state === 'open').length,
      breakerRecovered: recovered,
      elapsedMs,
    });

    expect(answered + degraded + typed + untyped.length).toBe(TURNS);
    expect(untyped).toEqual([]);
    expect(invalidCitations).toBe(0);
    expect(unhandled).toEqual([]);
    expect(lost).toBe(0);
    expect(duplicated).toBe(0);
    expect(opened).toBeGreaterThanOrEqual(0);
    expect(recovered).toBe(true);
    // The schedule really injected faults, and nearly every turn still got an answer: from the
    // model, or the fallback built from the sources while the breaker was open.
    expect(injected / modelCalls).toBeGreaterThan(0.2);
    expect(answered + degraded).toBeGreaterThan(TURNS * 0.9);
    expect(answered).toBeGreaterThan(TURNS * 0.2);
  }, 60_000);
});
