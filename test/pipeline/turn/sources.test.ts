import { describe, expect, it } from 'vitest';
import { snippet } from '../../../src/pipeline/turn/sources.js';

/** The snippet as defined: the whole text flattened, then cut at a word boundary. */
function reference(text: string, length = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= length) return flat;
  const cut = flat.slice(0, length);
  const space = cut.lastIndexOf(' ');
  return `${(space > length * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

describe('source snippets', () => {
  it('cuts a long text at a word boundary with an ellipsis', () => {
    const text = `${'word '.repeat(400)}end`;
    expect(snippet(text)).toBe(`${'word '.repeat(47)}word…`);
  });

  it('equals the whole-text definition when white space runs fill the start or cross the cut', () => {
    let seed = 3;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const pieces = [
      'a',
      'bb',
      'word',
      'x'.repeat(300),
      ' ',
      '\n\n',
      '\t ',
      ' '.repeat(700),
      '\u00a0',
      '\ufeff',
      '\u2028',
      'one two three four five six seven eight nine ten ',
    ];
    const texts = [
      ' '.repeat(2000) + 'short tail',
      `${' '.repeat(900)}${'y'.repeat(100)} ${'z'.repeat(300)}`,
      `${'x'.repeat(239)}${' '.repeat(800)}tail ${'w '.repeat(400)}`,
      `${'x'.repeat(241)}${' '.repeat(2000)}`,
      `${'x'.repeat(240)} ${' '.repeat(2000)}`,
      // white space filling twice the snippet's length but not four times: the wider window
      `${'x'.repeat(100)}${' '.repeat(400)}${'y '.repeat(300)}`,
      `${'v '.repeat(60)}${'\n'.repeat(300)}${'u '.repeat(300)}`,
      // prose with single spaces only: nothing to flatten
      `${'cells divide and grow '.repeat(60)}`,
      ` ${'cells divide and grow '.repeat(60)}`,
      `${'cells divide and grow '.repeat(10)}`,
    ];
    for (let i = 0; i < 400; i++) {
      texts.push(
        Array.from(
          { length: 1 + Math.floor(next() * 60) },
          () => pieces[Math.floor(next() * pieces.length)],
        ).join(''),
      );
    }
    for (const text of texts) {
      for (const length of [240, 20]) expect(snippet(text, length)).toBe(reference(text, length));
    }
  });
});
