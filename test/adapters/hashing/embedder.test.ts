import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { createHashingEmbedder, softStem } from '../../../src/adapters/hashing/embedder.js';
import { AbortError, ValidationError } from '../../../src/errors/index.js';
import { settledHeap } from '../../fixtures/heap.js';

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

  it('gives the same vectors as ever (digests of the vectors of version 1)', async () => {
    const texts = [
      'Refunds are issued within 14 days of the return.',
      'The REFUND policy: refunds, refunded, refunding — and the refund itself.',
      '',
      '!!!',
      'the and of',
      'Café naïve über Straße façade',
      '保証期間はどのくらいですか？ 保証期間は2年です。',
      'Die Garantie gilt für alle Fahrräder und die Rückgabe ist kostenlos.',
      'mutations mutated mutation mutating mutates x86 3.5 covid-19 IL-6',
      'alpha beta alpha beta alpha gamma delta alpha',
    ];
    const digest = (vectors: Float32Array[]) => {
      const hash = createHash('sha256');
      for (const vector of vectors) {
        hash.update(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
      }
      return hash.digest('hex').slice(0, 32);
    };
    // Stored indexes hold these vectors: a faster embedder must not change a bit of them.
    expect(digest(await createHashingEmbedder().embed(texts))).toBe(
      'bb113d1f58ebaace891918bab98b8a2d',
    );
    const pairs = createHashingEmbedder({ dimensions: 128, bigramWeight: 0.5 });
    expect(digest(await pairs.embed(texts))).toBe('546a03d4d451c24e6f97ca889aa19a8f');
    const chars = createHashingEmbedder({
      wordWeight: 0,
      minNgram: 2,
      maxNgram: 6,
      dimensions: 64,
    });
    expect(digest(await chars.embed(texts))).toBe('8675e8169ba8539a059fc39a0d84921e');
  });

  it('embeds alike after forgetting the words it memoised', async () => {
    // 200 texts of 1,100 new words each: the 200,000-word memo fills in the middle of text 181.
    const texts = Array.from({ length: 200 }, (_, text) =>
      Array.from({ length: 1100 }, (_, word) => `w${text}x${word.toString(36)}`).join(' '),
    );
    texts.push('refunds are issued within days', texts[3]!);
    const embedder = createHashingEmbedder({ dimensions: 32, bigramWeight: 0.5 });
    const vectors = await embedder.embed(texts);
    for (const index of [0, 180, 181, 182, 199, 200, 201]) {
      const [alone] = await createHashingEmbedder({ dimensions: 32, bigramWeight: 0.5 }).embed([
        texts[index]!,
      ]);
      expect(Array.from(vectors[index]!)).toEqual(Array.from(alone!));
    }
  });
});

describe('the hashing embedder’s word table', () => {
  it('keeps a long word, not the text it was cut from', async () => {
    const heap = settledHeap();
    const embedder = createHashingEmbedder({ dimensions: 64 });
    const before = heap();
    for (let index = 0; index < 60; index++) {
      // A 200,000-character text with one long word of its own, kept in the word table.
      const filler = 'Lorem ipsum dolor. '.repeat(10_000);
      await embedder.embed([`${filler} Unprecedentedness${index}x ${filler}`]);
    }
    // Kept whole, the lower-cased texts would be 12 MB.
    expect(heap() - before).toBeLessThan(4 * 2 ** 20);
  });
});
