import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosine, cosineWithNorms, squaredNorm } from '../../src/pipeline/route/intent.js';

const vector = (length: number) =>
  fc
    .array(fc.oneof(fc.float({ noNaN: false }), fc.constant(0)), {
      minLength: length,
      maxLength: length,
    })
    .map((values) => Float32Array.from(values));

describe('cosineWithNorms', () => {
  it('is cosine, bit for bit, with the norms summed apart (also for other lengths, zeros, NaN)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 40 })
          .chain((length) =>
            fc.tuple(vector(length), fc.integer({ min: 0, max: 44 }).chain(vector)),
          ),
        ([a, b]) => {
          const expected = cosine(a, b);
          const actual = cosineWithNorms(a, squaredNorm(a, a.length), b, squaredNorm(b, a.length));
          expect(Object.is(actual, expected)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('on 384-dimension unit-scale vectors, as the hashing embedder gives', () => {
    for (let run = 0; run < 200; run++) {
      const a = Float32Array.from({ length: 384 }, () => Math.random() - 0.5);
      const b = Float32Array.from({ length: 384 }, () => (Math.random() < 0.7 ? 0 : Math.random()));
      expect(cosineWithNorms(a, squaredNorm(a, 384), b, squaredNorm(b, 384))).toBe(cosine(a, b));
    }
  });
});
