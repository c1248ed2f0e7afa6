import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snippetText } from '../../../src/pipeline/turn/sources.js';

/** `snippetText` as it was written first: every line split, filtered and joined again. */
function splitEveryLine(text: string): string {
  const lines = text.slice(0, 8 * 240).split('\n');
  let first = 0;
  while (first < lines.length && /^[ \t]*(?:#{1,6}(?:[ \t]|$)|$)/.test(lines[first]!)) first++;
  const readable = lines
    .slice(first)
    .filter((line) => !/^[ \t]*(?:```|~~~)/.test(line))
    .join('\n');
  return readable.trim() === '' ? text : readable;
}

describe('snippetText', () => {
  it('equals the line-by-line reading on texts of headings, fences, blanks and prose', () => {
    const part = fc.constantFrom(
      '# ',
      '## ',
      '#######',
      '```',
      '~~~',
      ' ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      'word',
      '`',
      '~',
      '#',
      'x'.repeat(700),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(snippetText(text)).toBe(splitEveryLine(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('returns the first 1,920 characters of plain prose as they are', () => {
    const prose = 'Cells divide. '.repeat(300);
    expect(snippetText(prose)).toBe(prose.slice(0, 1920));
    expect(snippetText('  \u00a0 ')).toBe('  \u00a0 ');
  });
});
