import { describe, expect, it } from 'vitest';
import { stem } from '../../src/text/english.js';

/** The stemmer's steps as plain string operations (its definition, one slice per step). */
function stemByStrings(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let base = word;
  if (base.endsWith('ies') && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (base.endsWith('sses')) base = base.slice(0, -2);
  else if (base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1);
  if (base.endsWith('ing') && base.length > 5) base = base.slice(0, -3);
  else if (base.endsWith('ed') && base.length > 4) base = base.slice(0, -2);
  if (base.endsWith('e') && base.length > 3) base = base.slice(0, -1);
  const last = base[base.length - 1] ?? '';
  if (base.length > 3 && last === base[base.length - 2] && !'lsz'.includes(last)) {
    base = base.slice(0, -1);
  }
  return base;
}

describe('stem', () => {
  it('folds the forms of a word together', () => {
    expect(['refunds', 'refunded', 'refunding', 'refund'].map(stem)).toEqual(
      Array(4).fill('refund'),
    );
    expect(
      ['policies', 'classes', 'virus', 'analysis', 'running', 'fall', 'ties', 'a1s'].map(stem),
    ).toEqual(['policy', 'class', 'virus', 'analysis', 'run', 'fall', 'tie', 'a1s']);
  });

  it('equals the steps as string operations on every word of a small alphabet up to five letters', () => {
    // The letters the steps read (s, i, e, d, n, g, u, l, z, y) and one they do not (a, 7).
    const alphabet = ['s', 'i', 'e', 'd', 'n', 'g', 'u', 'l', 'z', 'y', 'a', '7', 'é'];
    let words = [''];
    for (let length = 1; length <= 5; length++) {
      words = words.flatMap((word) => alphabet.map((letter) => word + letter));
      for (const word of words) {
        if (stem(word) !== stemByStrings(word)) expect(stem(word)).toBe(stemByStrings(word));
      }
    }
  });

  it('equals the steps as string operations on random words', () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const letters = 'abcdefghijklmnopqrstuvwxyzsssieedngg0ÿ日';
    for (let count = 0; count < 20_000; count++) {
      let word = '';
      const length = 1 + Math.floor(next() * 12);
      for (let index = 0; index < length; index++)
        word += letters[Math.floor(next() * letters.length)];
      expect(stem(word)).toBe(stemByStrings(word));
    }
  });
});
