import { describe, expect, it } from 'vitest';

import { createHashingEmbedder, softStem } from '../../../src/adapters/hashing/embedder.js';
import { AbortError, ValidationError } from '../../../src/errors/index.js';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += a[index]! * b[index]!;
  return dot;
}

describe('createHashingEmbedder', () => {
  it('returns L2-normalised vectors of the configured dimension, deterministically', async () => {
    const embedder = createHashingEmbedder({ dimensions: 64 });
    const [first] = await embedder.embed(['Refunds are issued within 14 days.']);
    const [again] = await createHashingEmbedder({ dimensions: 64 }).embed([
      'Refunds are issued within 14 days.',
    ]);
    expect(first).toBeInstanceOf(Float32Array);
    expect(first!.length).toBe(64);
    expect(cosine(first!, first!)).toBeCloseTo(1, 5);
    expect(Array.from(again!)).toEqual(Array.from(first!));
  });

  it('puts related texts closer than unrelated ones', async () => {
    const embedder = createHashingEmbedder();
    const [query, related, morphological, unrelated] = await embedder.embed([
      'How are refunds issued?',
      'Refunds are issued to the original payment method within 14 days.',
      'We refunded the payment.',
      'The office is closed on public holidays.',
    ]);
    expect(cosine(query!, related!)).toBeGreaterThan(cosine(query!, unrelated!));
    expect(cosine(query!, morphological!)).toBeGreaterThan(cosine(query!, unrelated!));
  });

  it('ignores stop words and case', async () => {
    const embedder = createHashingEmbedder();
    const [a, b] = await embedder.embed(['The REFUND policy', 'refund policy']);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
  });

  it('never returns a zero vector', async () => {
    const embedder = createHashingEmbedder({ dimensions: 32 });
    for (const vector of await embedder.embed(['', '!!!', 'the and of'])) {
      expect(cosine(vector, vector)).toBeCloseTo(1, 5);
    }
  });

  it('encodes its settings in the id', () => {
    expect(createHashingEmbedder().id).toBe('hashing-v1-384-w1-b0-c1.5x3-5');
    expect(createHashingEmbedder({ dimensions: 128, bigramWeight: 0.5 }).id).toBe(
      'hashing-v1-128-w1-b0.5-c1.5x3-5',
    );
    expect(createHashingEmbedder().dimensions).toBe(384);
    expect(createHashingEmbedder({ maxBatchSize: 16 }).maxBatchSize).toBe(16);
  });

  it('rejects bad settings and input', async () => {
    expect(() => createHashingEmbedder({ dimensions: 0 })).toThrow(ValidationError);
    expect(() => createHashingEmbedder({ minNgram: 5, maxNgram: 3 })).toThrow(/maxNgram/);
    await expect(createHashingEmbedder().embed([42 as unknown as string])).rejects.toThrow(
      /texts\.0/,
    );
    const controller = new AbortController();
    controller.abort();
    await expect(
      createHashingEmbedder().embed(['x'], { signal: controller.signal }),
    ).rejects.toThrow(AbortError);
  });

  it('stems plurals and common suffixes softly', () => {
    expect(softStem('studies')).toBe('study');
    expect(softStem('cells')).toBe('cell');
    expect(softStem('increased')).toBe('increas');
    expect(softStem('virus')).toBe('virus');
    expect(softStem('gas')).toBe('gas');
  });
});
