import { describe, expect, it } from 'vitest';

import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { ValidationError } from '../../src/errors/index.js';
import {
  createLearnedBoost,
  decayWeight,
  feedbackSignals,
  similarityWeight,
} from '../../src/learning/learned-boost.js';
import type { LearnedBoost } from '../../src/pipeline/retrieve.js';

const DAY = 24 * 60 * 60 * 1000;
const embedder = createHashingEmbedder();

async function embed(text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text]);
  return vector!;
}

const QUESTION =
  'Does vitamin D supplementation reduce the risk of bone fractures in older adults?';
const PARAPHRASE = 'Does vitamin D supplementation lower bone fracture risk in elderly adults?';
const UNRELATED = 'How do I reset the password of my wireless router at home?';

describe('createLearnedBoost', () => {
  it('is neutral without events and fits the retrieval hook', async () => {
    const learned = createLearnedBoost();
    const hook: LearnedBoost = learned.boost;
    expect(hook('chunk-1', await embed(QUESTION))).toBe(1);
    expect(learned.size).toBe(0);
  });

  it('rises for the same and for a similar query, not for an unrelated one', async () => {
    const learned = createLearnedBoost();
    learned.record({ queryVector: await embed(QUESTION), chunkId: 'chunk-1', signal: 1 });
    const same = learned.boost('chunk-1', await embed(QUESTION));
    const similar = learned.boost('chunk-1', await embed(PARAPHRASE));
    expect(same).toBeGreaterThan(1);
    expect(similar).toBeGreaterThan(1);
    expect(similar).toBeLessThanOrEqual(same);
    expect(learned.boost('chunk-1', await embed(UNRELATED))).toBe(1);
    expect(learned.boost('chunk-2', await embed(QUESTION))).toBe(1);
  });

  it('lowers a chunk after negative feedback', async () => {
    const learned = createLearnedBoost({ gain: 0.5 });
    learned.record({ queryVector: await embed(QUESTION), chunkId: 'chunk-1', signal: -1 });
    expect(learned.boost('chunk-1', await embed(QUESTION))).toBeCloseTo(0.5);
    learned.record({ queryVector: await embed(QUESTION), chunkId: 'chunk-1', signal: 1 });
    expect(learned.boost('chunk-1', await embed(QUESTION))).toBeCloseTo(1);
  });

  it('stays within [0.5, 2] however much feedback there is', async () => {
    const learned = createLearnedBoost({ gain: 10 });
    const vector = await embed(QUESTION);
    for (let index = 0; index < 100; index++) {
      learned.record({ queryVector: vector, chunkId: 'up', signal: 1 });
      learned.record({ queryVector: vector, chunkId: 'down', signal: -1 });
    }
    expect(learned.boost('up', vector)).toBe(2);
    expect(learned.boost('down', vector)).toBe(0.5);
  });

  it('decays with a half-life', async () => {
    let now = 1_000 * DAY;
    const learned = createLearnedBoost({ gain: 0.5, halfLifeMs: 30 * DAY, now: () => now });
    const vector = await embed(QUESTION);
    learned.record({ queryVector: vector, chunkId: 'chunk-1', signal: 1 });
    expect(learned.boost('chunk-1', vector)).toBeCloseTo(1.5);
    now += 30 * DAY;
    expect(learned.boost('chunk-1', vector)).toBeCloseTo(1.25);
    now += 300 * DAY;
    expect(learned.boost('chunk-1', vector)).toBeCloseTo(1, 3);
    // An event recorded with an old timestamp counts as old.
    learned.record({ queryVector: vector, chunkId: 'chunk-2', signal: 1, at: now - 30 * DAY });
    expect(learned.boost('chunk-2', vector)).toBeCloseTo(1.25);
  });

  it('bounds memory per chunk and in total, evicting the oldest', async () => {
    const vector = await embed(QUESTION);
    const perChunk = createLearnedBoost({ maxEventsPerChunk: 2, gain: 0.25 });
    perChunk.record({ queryVector: vector, chunkId: 'chunk-1', signal: -1 });
    perChunk.record({ queryVector: vector, chunkId: 'chunk-1', signal: 1 });
    perChunk.record({ queryVector: vector, chunkId: 'chunk-1', signal: 1 });
    expect(perChunk.size).toBe(2);
    expect(perChunk.boost('chunk-1', vector)).toBeCloseTo(1.5); // the −1 was evicted
    const overall = createLearnedBoost({ maxEvents: 3 });
    for (const chunkId of ['a', 'b', 'c', 'd']) {
      overall.record({ queryVector: vector, chunkId, signal: 1 });
    }
    expect(overall.size).toBe(3);
    expect(overall.boost('a', vector)).toBe(1);
    expect(overall.boost('d', vector)).toBeGreaterThan(1);
    overall.clear();
    expect(overall.size).toBe(0);
    expect(overall.boost('d', vector)).toBe(1);
  });

  it('ignores query vectors of another length', async () => {
    const learned = createLearnedBoost();
    learned.record({ queryVector: await embed(QUESTION), chunkId: 'chunk-1', signal: 1 });
    expect(learned.boost('chunk-1', new Float32Array([1, 0, 0]))).toBe(1);
  });

  it('rejects bad events naming the field and stores nothing', async () => {
    const learned = createLearnedBoost();
    const queryVector = await embed(QUESTION);
    const bad = [
      { queryVector, chunkId: 'chunk-1', signal: 2 },
      { queryVector, chunkId: '', signal: 1 },
      { queryVector: new Float32Array(0), chunkId: 'chunk-1', signal: 1 },
      { queryVector: new Float32Array([Number.NaN]), chunkId: 'chunk-1', signal: 1 },
      { queryVector, chunkId: 'chunk-1', signal: 1, at: Number.POSITIVE_INFINITY },
    ];
    for (const event of bad) expect(() => learned.record(event)).toThrow(ValidationError);
    expect(() => learned.record({ queryVector, chunkId: 'chunk-1', signal: Number.NaN })).toThrow(
      /signal/,
    );
    expect(learned.size).toBe(0);
  });

  it('rejects bad settings', () => {
    expect(() => createLearnedBoost({ similarityFloor: 1 })).toThrow(ValidationError);
    expect(() => createLearnedBoost({ halfLifeMs: 0 })).toThrow(/halfLifeMs/);
    expect(() => createLearnedBoost({ gain: -1 })).toThrow(/gain/);
    expect(() => createLearnedBoost({ maxEvents: 0 })).toThrow(/maxEvents/);
  });
});

describe('similarityWeight and decayWeight', () => {
  it('maps cosine above the floor linearly to (0, 1]', () => {
    expect(similarityWeight(0.1, 0.6)).toBe(0);
    expect(similarityWeight(0.6, 0.6)).toBe(0);
    expect(similarityWeight(0.8, 0.6)).toBeCloseTo(0.5);
    expect(similarityWeight(1, 0.6)).toBe(1);
    expect(similarityWeight(Number.NaN, 0.6)).toBe(0);
  });

  it('halves every half-life and counts future events fully', () => {
    expect(decayWeight(0, 10)).toBe(1);
    expect(decayWeight(-5, 10)).toBe(1);
    expect(decayWeight(10, 10)).toBeCloseTo(0.5);
    expect(decayWeight(20, 10)).toBeCloseTo(0.25);
  });
});

describe('feedbackSignals', () => {
  const sources = [
    { id: 'S1', chunkId: 'c1' },
    { id: 'S2', chunkId: 'c2' },
    { id: 'S3', chunkId: 'c3' },
  ];

  it('maps per-source helpfulness h to 2h − 1 and skips unrated sources', () => {
    expect(feedbackSignals(sources, { S1: 1, S3: 0, c2: 0.75 }, 'good')).toEqual([
      { chunkId: 'c1', signal: 1 },
      { chunkId: 'c2', signal: 0.5 },
      { chunkId: 'c3', signal: -1 },
    ]);
  });

  it('spreads the rating over the sources without helpfulness', () => {
    expect(feedbackSignals(sources.slice(0, 2), undefined, 'good')).toEqual([
      { chunkId: 'c1', signal: 0.5 },
      { chunkId: 'c2', signal: 0.5 },
    ]);
    expect(feedbackSignals(sources.slice(0, 1), {}, 'bad')).toEqual([
      { chunkId: 'c1', signal: -0.5 },
    ]);
    expect(feedbackSignals(sources.slice(0, 1), null, 'neutral')).toEqual([
      { chunkId: 'c1', signal: 0 },
    ]);
    expect(feedbackSignals([], null, 'good')).toEqual([]);
  });

  it('rejects helpfulness outside [0, 1] naming the source', () => {
    expect(() => feedbackSignals(sources, { S2: 1.5 }, 'good')).toThrow(/sourceHelpfulness\.S2/);
    expect(() => feedbackSignals(sources, { S2: -0.1 }, 'good')).toThrow(ValidationError);
  });
});
