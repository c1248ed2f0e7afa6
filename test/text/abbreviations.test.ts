import { describe, expect, it } from 'vitest';
import {
  ABBREVIATIONS,
  abbreviationStems,
  acronymsOf,
  initialsRuns,
  spellsAcronym,
  wordsOf,
} from '../../src/text/abbreviations.js';
import { stem } from '../../src/text/english.js';

describe('abbreviationStems', () => {
  it('maps a clipped word to its full form and back, by stem', () => {
    expect(abbreviationStems(stem('config'))).toEqual([stem('configuration')]);
    expect(abbreviationStems(stem('configuration'))).toEqual([stem('config')]);
    expect(abbreviationStems(stem('args'))).toEqual([stem('arguments')]);
    expect(abbreviationStems(stem('dependencies'))).toEqual([stem('deps')]);
    expect(abbreviationStems(stem('milliseconds'))).toEqual([stem('ms')]);
    // One clipping may stand for two words.
    expect(abbreviationStems(stem('auth'))).toEqual([
      stem('authentication'),
      stem('authorization'),
    ]);
    expect(abbreviationStems(stem('minute'))).toEqual([]);
  });

  it('holds no pair twice and no clipping equal to its word', () => {
    const keys = ABBREVIATIONS.map(([short, long]) => `${short}/${long}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const [short, long] of ABBREVIATIONS) expect(stem(short)).not.toBe(stem(long));
  });
});

describe('acronymsOf', () => {
  it('reads words of two to six capitals, with a plural s, lower-cased', () => {
    expect([...acronymsOf('The CLI calls the APIs over HTTP; a UI too.')]).toEqual([
      'cli',
      'api',
      'http',
      'ui',
    ]);
    expect([...acronymsOf('A cli, an Api, a mRNA, I, ABCDEFGH and 2FA.')]).toEqual([]);
  });
});

describe('initialsRuns', () => {
  it('gives the initials of runs of two to six words without a stop word', () => {
    const runs = initialsRuns(wordsOf('the command-line interface of a certificate authority'));
    expect(runs.map((run) => run.initials)).toEqual(['cl', 'cli', 'li', 'ca']);
    expect(runs[1]!.words).toEqual(['command', 'line', 'interface']);
  });
});

describe('spellsAcronym', () => {
  it('finds consecutive words whose initials spell the acronym', () => {
    expect(spellsAcronym('cli', wordsOf('Use the Command-Line Interface.'))).toBe(true);
    expect(spellsAcronym('api', wordsOf('an application programming interface'))).toBe(true);
    expect(spellsAcronym('api', wordsOf('an application and programming interface'))).toBe(false);
    expect(spellsAcronym('cli', wordsOf('a command line'))).toBe(false);
    expect(spellsAcronym('a', wordsOf('a b'))).toBe(false);
  });
});
