import { describe, expect, it } from 'vitest';
import { novelNumber } from '../../../src/pipeline/judge/novelty.js';
import { prepareSource } from '../../../src/pipeline/judge/source.js';

// The number words as `valuesFact` read them before: every run of letters looked up.
const NUMBER_WORDS: Record<string, number> = Object.fromEntries(
  (
    'zero 0 one 1 two 2 three 3 four 4 five 5 six 6 seven 7 eight 8 nine 9 ten 10 eleven 11 ' +
    'twelve 12 fifteen 15 twenty 20 thirty 30 forty 40 fifty 50 hundred 100 thousand 1000 ' +
    'half 50 single 1 once 1 twice 2 double 2 i 1 ii 2 iii 3 iv 4'
  )
    .split(' ')
    .reduce<[string, number][]>(
      (pairs, item, index, items) =>
        index % 2 === 0 ? [...pairs, [item, Number(items[index + 1])]] : pairs,
      [],
    ),
);

function wordValues(lower: string): Set<number> {
  const values = new Set<number>();
  for (const word of lower.match(/\p{L}+/gu) ?? []) {
    const value = Object.hasOwn(NUMBER_WORDS, word) ? NUMBER_WORDS[word] : undefined;
    if (value !== undefined) values.add(value);
  }
  return values;
}

const PIECES = [
  ...'one two Three iii ii i IV iiii twofold someone once twice half double fifteen'.split(' '),
  ...'thousand hundred twelve eleven constructor zero ten é-one oneé oné ninety'.split(' '),
  ...'cells were 3 4.5 1,000 patients II Type'.split(' '),
];

describe('novelNumber and the number words a source states', () => {
  it('finds a claim number stated as a word exactly where a whole word is a number word', () => {
    let seed = 3;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    for (let round = 0; round < 2_000; round++) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => PIECES[Math.floor(next() * PIECES.length)]!,
      ).join(next() < 0.3 ? '-' : ' ');
      const source = prepareSource(text);
      const words = wordValues(source.lower);
      if (/\d/.test(text)) continue;
      for (const value of [0, 1, 2, 3, 4, 10, 12, 50, 100, 1000, 90]) {
        const claim = `The trial enrolled ${value} patients.`;
        expect(novelNumber(claim, source) === undefined, `${value} in "${text}"`).toBe(
          words.has(value),
        );
      }
    }
  });
});
