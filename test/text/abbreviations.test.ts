import { describe, expect, it } from 'vitest';
import { acronymsOf, wordsOf, wordsSpelledBy } from '../../src/text/abbreviations.js';

describe('acronymsOf', () => {
  it('reads words of two to six capitals, with a plural s, lower-cased', () => {
    expect([...acronymsOf('The CLI calls the APIs over HTTP; a UI too.')]).toEqual([
      'cli',
      'api',
      'http',
      'ui',
    ]);
    expect([...acronymsOf('A cli, an Api, a mRNA, I, ABCDEFGH, 2FA and CLIs2.')]).toEqual([]);
  });
});

describe('wordsSpelledBy', () => {
  it('finds the words of runs of two to six words, no stop word among them, spelling an acronym', () => {
    const words = wordsOf('the command-line interface of a certificate authority');
    expect([...wordsSpelledBy(words, new Set(['cli']))]).toEqual(['command', 'line', 'interface']);
    expect([...wordsSpelledBy(words, new Set(['ca', 'li']))]).toEqual([
      'line',
      'interface',
      'certificate',
      'authority',
    ]);
    // "interface of a certificate": a stop word ends a run
    expect([...wordsSpelledBy(words, new Set(['ic', 'ioac']))]).toEqual([]);
    expect([...wordsSpelledBy(words, new Set())]).toEqual([]);
  });

  it('reads runs of six words at most', () => {
    const words = wordsOf('alpha beta gamma delta epsilon zeta eta');
    expect([...wordsSpelledBy(words, new Set(['abgdez']))]).toHaveLength(6);
    expect([...wordsSpelledBy(words, new Set(['abgdeze']))]).toEqual([]);
  });
});
