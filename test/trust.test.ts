/**
 * Trust signals on small corpora the defaults were never tuned on (issue 13): the adaptive
 * guard answers what the corpus answers and refuses what it does not, and a correct verbatim
 * answer from one source is rated at least medium.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine, type GuardEvent } from '../src/index.js';
import { bikeShareHandbook } from './fixtures/bike-share-handbook.js';
import { handbook } from './fixtures/handbook.js';

async function engineWith(
  documents: readonly { id: string; title: string; text: string }[],
  config: Parameters<typeof createChatEngine>[0] = {},
) {
  const engine = createChatEngine(config);
  await engine.ingest(documents.map((document) => ({ ...document })));
  const guards: GuardEvent[] = [];
  engine.on('guard', (event) => guards.push(event));
  const ask = (message: string) => engine.chat({ message, mode: 'query' });
  return { engine, ask, guards };
}

const quickstart = [
  {
    id: 'refunds',
    title: 'Refunds',
    text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.',
  },
];

describe('README quickstart (one page)', () => {
  it('rates the correct verbatim answer at least medium', async () => {
    const { ask } = await engineWith(quickstart);
    const reply = await ask('How fast are refunds?');
    expect(reply.guard).toBe(false);
    expect(reply.sources[0]?.documentId).toBe('refunds');
    expect(reply.text).toContain('Refunds are issued within 14 days of the request');
    expect(['medium', 'high']).toContain(reply.confidence.level);
    // The five factors of seed 000 are still reported.
    expect(reply.confidence).toMatchObject({
      sourceQuality: expect.any(Number),
      sourceDiversity: expect.any(Number),
      semanticCohesion: expect.any(Number),
    });
  });

  it('still refuses an off-topic question', async () => {
    const { ask, guards } = await engineWith(quickstart);
    const reply = await ask('How do I reset my router password?');
    expect(reply.guard).toBe(true);
    expect(reply.sources).toEqual([]);
    expect(guards).toHaveLength(1);
  });
});

describe('adaptive guard on small corpora', () => {
  it('answers an answerable question a fixed 0.35 refused, and refuses off-topic ones (3 pages)', async () => {
    const { ask, guards } = await engineWith(handbook);
    const answerable = await ask('Can I get my money back for a gift card?');
    expect(answerable.guard).toBe(false);
    expect(answerable.sources[0]?.documentId).toBe('refunds');
    expect(answerable.sources[0]!.score).toBeLessThan(0.35);

    for (const question of [
      'How much does a Tesla Model 3 cost?',
      'How do I reset my router password?',
      'What is the capital of Australia?',
    ]) {
      expect((await ask(question)).guard, question).toBe(true);
    }
    const lowSimilarity = guards.filter((event) => event.reason === 'low-similarity');
    expect(lowSimilarity.length).toBeGreaterThan(0);
    for (const event of lowSimilarity) {
      expect(event).toMatchObject({ adaptive: true, minSimilarity: 0.5 });
      expect(event.evidence).toBeLessThan(0.5);
    }
  });

  it('answers from the right page of the 8-page e-bike handbook', async () => {
    const { ask } = await engineWith(bikeShareHandbook);
    for (const [question, page] of [
      ['How old do I have to be to ride?', 'age'],
      ['How far can a bike go on one charge?', 'battery'],
      ['Do I need a helmet?', 'helmets'],
    ] as const) {
      const reply = await ask(question);
      expect(reply.guard, question).toBe(false);
      expect(reply.sources[0]?.documentId, question).toBe(page);
    }
    expect((await ask('How do I change a flat tire on my bicycle?')).guard).toBe(true);
  });

  it('answers the handbook questions whose words the corpus lacks (discount, morning)', async () => {
    const { ask } = await engineWith(bikeShareHandbook);
    for (const [question, page] of [
      ['Do students get a discount?', 'pricing'],
      ['What time does the service start in the morning?', 'hours'],
    ] as const) {
      const reply = await ask(question);
      expect(reply.guard, question).toBe(false);
      expect(
        reply.sources.map((source) => source.documentId),
        question,
      ).toContain(page);
    }
    // Price and time questions the handbook does not answer are still refused.
    for (const question of [
      'How much does a Tesla Model 3 cost?',
      'What time does the supermarket close on Sundays?',
      'Is there a discount on groceries?',
    ]) {
      expect((await ask(question)).guard, question).toBe(true);
    }
  });

  it('lets an explicit minSimilarity decide instead', async () => {
    const { ask, guards } = await engineWith(quickstart, { retrieval: { minSimilarity: 0.9 } });
    const reply = await ask('How fast are refunds?');
    expect(reply.guard).toBe(true);
    expect(guards[0]).toMatchObject({
      reason: 'low-similarity',
      minSimilarity: 0.9,
      adaptive: false,
    });
    expect(guards[0]!.evidence).toBe(guards[0]!.topScore);
  });
});
