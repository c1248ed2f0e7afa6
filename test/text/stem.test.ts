import { describe, expect, it } from 'vitest';
import { adjectiveOf, stem } from '../../src/text/stem.js';

describe('adjectiveOf', () => {
  it('gives the adjective an "-ly" adverb is made from', () => {
    expect(
      ['synchronously', 'recursively', 'manually', 'independently', 'carefully'].map(adjectiveOf),
    ).toEqual(['synchronous', 'recursive', 'manual', 'independent', 'careful']);
    // The stemmer leaves the adverb whole: the adjective is what meets the docs' words.
    expect(stem('synchronously')).toBe('synchronously');
    expect(stem(adjectiveOf('synchronously')!)).toBe(stem('Synchronous'.toLowerCase()));
  });

  it('leaves other words, and "-ly" words that are no such adverb, alone', () => {
    for (const word of ['only', 'apply', 'family', 'reply', 'early', 'daily', 'sync', 'ally']) {
      expect(adjectiveOf(word), word).toBeNull();
    }
  });
});
