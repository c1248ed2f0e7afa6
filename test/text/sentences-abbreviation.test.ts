import { describe, expect, it } from 'vitest';

import { endsWithAbbreviation, splitSentences } from '../../src/text/sentences.js';
import { seededRandom as random } from '../util/helpers.js';

const ABBREVIATIONS = new Set(
  'e.g i.e vs mr mrs ms dr prof fig al approx cf st jr sr inc ltd co eq ref vol p pp f.ex resp incl esp'.split(
    ' ',
  ),
);

/** The test as it was before its letter-run pre-check: the expression alone. */
function reference(text: string, sentenceStart: number, at: number, next: string): boolean {
  const before = text.slice(Math.max(sentenceStart, at - 48), at + 1);
  const match = /(?:^|[\s(])([A-Za-z](?:\.[A-Za-z])*|[A-Za-z]{1,6}|f\.ex)\.$/.exec(before);
  if (!match?.[1]) return false;
  const word = match[1];
  const lower = word.toLowerCase();
  if (lower === 'no') return next >= '0' && next <= '9';
  if (lower === 'etc') return !(next >= 'A' && next <= 'Z');
  if (ABBREVIATIONS.has(lower) || /^[a-z](\.[a-z])+$/.test(lower)) return true;
  if (/^[A-Z]$/.test(word)) {
    const previous = /(\S+)\s+\S*$/.exec(before.slice(0, before.length - 2))?.[1] ?? '';
    return previous === '' || /^[A-Z]/.test(previous);
  }
  return false;
}

describe('endsWithAbbreviation', () => {
  it('answers as the expression alone for periods after every kind of word and window cut', () => {
    const next = random(48);
    const pieces = [
      'e.g',
      'i.e',
      'U.S',
      'f.ex',
      'etc',
      'No',
      'no',
      'Dr',
      'approx',
      'vitamin',
      'D',
      'F',
      'John',
      'x',
      'abcdef',
      'abcdefg',
      'Kennedy',
      'réservé',
      'ĳ',
      '5',
      '(cf',
      '(abcdefgh',
      'a.b.c',
      'iconv.decode',
      'ab1',
      '_',
      ')',
      'word'.repeat(12),
      'x'.repeat(47),
      'X'.repeat(6),
    ];
    let compared = 0;
    for (let n = 0; n < 4000; n++) {
      const words = Array.from(
        { length: 1 + Math.floor(next() * 8) },
        () => pieces[Math.floor(next() * pieces.length)]!,
      );
      const separator = next() < 0.2 ? '' : next() < 0.5 ? ' ' : next() < 0.7 ? '\n' : ' (';
      const text = `${words.join(separator)}. ${next() < 0.5 ? 'Next' : next() < 0.5 ? '5' : 'and'}`;
      const at = text.lastIndexOf('.');
      const following = text[at + 2]!;
      for (const start of [
        0,
        Math.floor(next() * at),
        at,
        Math.max(0, at - 47),
        Math.max(0, at - 49),
      ]) {
        if (start > at) continue;
        expect(
          endsWithAbbreviation(text, start, at, following),
          JSON.stringify({ text, start }),
        ).toBe(reference(text, start, at, following));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(15000);
  });

  it('still splits after long words and keeps abbreviations and initials together', () => {
    const text =
      'We measured the concentrations. Results vary, e.g. in mice. Dr. Smith agreed with John F. Kennedy. ' +
      `${'a'.repeat(60)}. Then vitamin D. It helped.`;
    expect(splitSentences(text).map((span) => span.text)).toEqual([
      'We measured the concentrations.',
      'Results vary, e.g. in mice.',
      'Dr. Smith agreed with John F. Kennedy.',
      `${'a'.repeat(60)}.`,
      'Then vitamin D.',
      'It helped.',
    ]);
  });
});
