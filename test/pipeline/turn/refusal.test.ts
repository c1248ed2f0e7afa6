import { describe, expect, it } from 'vitest';
import {
  createChatEngine,
  createMemorySessionStore,
  DEFAULT_GUARD_ANSWER,
  type ChatResponse,
  type ChatStreamPart,
} from '../../../src/index.js';
import { NO_ANSWER_TEXT } from '../../../src/adapters/extractive/answer.js';
import type { LLMProvider, LLMResult } from '../../../src/ports/llm-provider.js';
import { refusalFromMetadata, refusalMetadata } from '../../../src/pipeline/turn/idempotency.js';
import { createMockLLM } from '../../../src/testing/index.js';
import { handbook } from '../../fixtures/handbook.js';

async function engineWith(config: Parameters<typeof createChatEngine>[0] = {}) {
  const engine = createChatEngine(config);
  await engine.ingest(handbook);
  return engine;
}

const QUESTION = 'What is the refund policy?';

/** A provider that writes `text` and marks it as a refusal (as a provider that knows may). */
function markingProvider(text: string): LLMProvider {
  const result: LLMResult = { text, finishReason: 'stop', refused: true };
  return {
    name: 'marking',
    specificationVersion: 'v1',
    metadata: { provider: 'marking', model: 'marking-1', contextWindow: 8192 },
    async generate() {
      return result;
    },
    async *stream() {
      yield { type: 'text-delta', text };
      yield { type: 'finish', finishReason: 'stop', refused: true };
    },
  };
}

async function streamed(
  engine: Awaited<ReturnType<typeof engineWith>>,
  message: string,
): Promise<{ done: ChatResponse; response: ChatResponse }> {
  const stream = engine.stream({ message, mode: 'query' });
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  const done = parts.at(-1);
  if (done?.type !== 'done') throw new Error('the stream did not end with done');
  return { done: done.response, response: await stream.response };
}

describe('refused: one field tells every refusal', () => {
  it('is null when the turn answers, and on small talk', async () => {
    const engine = await engineWith();
    const reply = await engine.chat({ message: QUESTION, mode: 'query' });
    expect(reply.sources.length).toBeGreaterThan(0);
    expect(reply.refused).toBeNull();
    expect((await engine.chat({ message: 'hi!', mode: 'query' })).refused).toBeNull();
  });

  it('names the guard when too little evidence was found', async () => {
    const engine = await engineWith();
    const reply = await engine.chat({ message: 'How do I bake sourdough bread?', mode: 'query' });
    expect(reply.guard).toBe(true);
    expect(reply.refused).toEqual({
      by: 'guard',
      reason: expect.stringMatching(/^(no-sources|low-similarity)$/),
    });
  });

  it('names the model when it wrote a refusal itself (guard stays false)', async () => {
    const engine = await engineWith({
      llm: createMockLLM({ responses: 'The provided sources do not contain an answer.' }),
    });
    const reply = await engine.chat({ message: QUESTION, mode: 'query' });
    expect(reply.guard).toBe(false);
    expect(reply.refused).toEqual({ by: 'model', reason: 'no-answer' });
    const { done, response } = await streamed(engine, QUESTION);
    expect(done.refused).toEqual({ by: 'model', reason: 'no-answer' });
    expect(response.refused).toEqual({ by: 'model', reason: 'no-answer' });
  });

  it("takes the provider's own mark, in generate and in stream, whatever the text says", async () => {
    const engine = await engineWith({ llm: markingProvider('Nothing in these pages fits.') });
    const reply = await engine.chat({ message: QUESTION, mode: 'query' });
    expect(reply.refused).toEqual({ by: 'model', reason: 'no-answer' });
    expect((await streamed(engine, QUESTION)).done.refused).toEqual({
      by: 'model',
      reason: 'no-answer',
    });
  });

  it("reports the default offline model's own refusal as the model's", async () => {
    const engine = await engineWith({ judge: { mode: 'off' } });
    // On a policy, so the guard lets it through (its focus check leaves out the words naming the
    // kind of answer wanted); but it asks for an API name the handbook has none of, and those
    // words weigh more than "policy" (a word of a section's title only) in the offline model, so
    // no sentence covers enough of the question and the model writes its own refusal. (With
    // "the refund policy" a sentence of that section covers enough: the model quotes it and
    // says the sources name no function. A question naming something the handbook never
    // mentions, "… for pets?", is refused by the guard instead.)
    const reply = await engine.chat({
      message: 'Which function, method, class, hook or event sets the policy?',
      mode: 'query',
    });
    expect(reply.guard).toBe(false);
    expect(reply.text).toBe(NO_ANSWER_TEXT);
    expect(reply.refused).toEqual({ by: 'model', reason: 'no-answer' });
  });

  it('names the judge when policy block replaced the answer, in the stream too', async () => {
    const invented =
      'Refunds are paid in gold bars on the moon [source: S1]. Cats approve every refund [source: S2].';
    const engine = await engineWith({
      llm: createMockLLM({ responses: invented }),
      judge: { policy: 'block' },
    });
    const reply = await engine.chat({ message: QUESTION, mode: 'query' });
    expect(reply.text).toBe(DEFAULT_GUARD_ANSWER);
    expect(reply.guard).toBe(true);
    expect(reply.refused).toEqual({ by: 'judge', reason: 'unsupported' });
    expect((await streamed(engine, QUESTION)).done.refused).toEqual({
      by: 'judge',
      reason: 'unsupported',
    });
  });

  it('is stored with the answer: an idempotent retry replays the same refusal', async () => {
    const sessionStore = createMemorySessionStore();
    const engine = await engineWith({
      sessionStore,
      llm: createMockLLM({ responses: 'The provided sources do not contain an answer.' }),
    });
    const session = await engine.createSession({ userId: 'u1' });
    const ask = () =>
      engine.chat({ sessionId: session.id, message: QUESTION, messageId: 'client-1' });
    const first = await ask();
    const retried = await ask();
    expect(retried.messageId).toBe(first.messageId);
    expect(retried.refused).toEqual({ by: 'model', reason: 'no-answer' });
    const stored = await sessionStore.getMessage(first.messageId);
    expect(stored?.metadata).toEqual({ refusedBy: 'model', refusedReason: 'no-answer' });
  });
});

describe('the refusal stored with an answer', () => {
  const stored = (metadata: Record<string, string | number | boolean | null>, guard = false) =>
    ({ metadata, guard }) as unknown as Parameters<typeof refusalFromMetadata>[0];

  it('round-trips every refusal through the message metadata', () => {
    for (const refusal of [
      { by: 'guard', reason: 'no-sources' },
      { by: 'guard', reason: 'low-similarity' },
      { by: 'model', reason: 'no-answer' },
      { by: 'judge', reason: 'unsupported' },
    ] as const) {
      expect(refusalFromMetadata(stored({ ...refusalMetadata(refusal) }))).toEqual(refusal);
    }
    expect(refusalMetadata(null)).toEqual({});
  });

  it('ignores hostile or unknown stored values: NUL, lone surrogates, huge strings, numbers', () => {
    for (const [by, reason] of [
      ['guard\u0000', 'no-sources'],
      ['\ud800', 'no-answer'],
      ['model', 'x'.repeat(1_000_000)],
      [1, 'unsupported'],
      ['__proto__', 'constructor'],
      [null, null],
    ] as const) {
      expect(refusalFromMetadata(stored({ refusedBy: by, refusedReason: reason }))).toBeNull();
      // an answer stored as a guard answer stays the guard's
      expect(refusalFromMetadata(stored({ refusedBy: by, refusedReason: reason }, true))).toEqual({
        by: 'guard',
        reason: 'low-similarity',
      });
    }
  });
});
