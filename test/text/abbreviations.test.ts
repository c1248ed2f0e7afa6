import { describe, expect, it } from 'vitest';
import { acronymsOf, initialsRuns, wordsOf } from '../../src/text/abbreviations.js';

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

describe('initialsRuns', () => {
  it('gives the initials of runs of two to six words without a stop word', () => {
    const runs = initialsRuns(wordsOf('the command-line interface of a certificate authority'));
    expect(runs.map((run) => run.initials)).toEqual(['cl', 'cli', 'li', 'ca']);
    expect(runs[1]!.words).toEqual(['command', 'line', 'interface']);
    const seven = initialsRuns(wordsOf('a b c d e f g'.replace(/ /g, 'x ')));
    expect(Math.max(...seven.map((run) => run.words.length))).toBe(6);
  });
});
