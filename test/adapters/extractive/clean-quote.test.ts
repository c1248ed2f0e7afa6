import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanQuote, sourceSentences } from '../../../src/adapters/extractive/candidates.js';
import { CITATION } from '../../../src/adapters/extractive/prompt.js';

/** The clean-up as four passes over every sentence, as it was before it skipped passes. */
function cleanedInPasses(raw: string): string {
  const lines = raw.split('\n');
  while (lines.length > 0 && /^\s*#{1,6}(?:\s|$)/.test(lines[0]!)) lines.shift();
  return lines
    .join(' ')
    .replace(CITATION, '')
    .replace(/^\s*(?:>\s*)*(?:[-*+•]|\d{1,3}[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// Pieces that exercise every pass: heading lines, markers, citation tags, every kind of white
// space `\s` knows, and plain words.
const piece = fc.constantFrom(
  '# ',
  '## Heading',
  '#',
  '> ',
  '- ',
  '* ',
  '• ',
  '12. ',
  '3) ',
  '[source: S1]',
  ' [Source : S2 ]',
  '[note]',
  '[',
  ']',
  ' ',
  '  ',
  '\n',
  '\t',
  '\r\n',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\ufeff',
  'refunds',
  'take',
  '14',
  'days.',
  'café',
  '漢字',
);

describe('cleanQuote', () => {
  it('equals the four clean-up passes on any text', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const raw = pieces.join('');
        expect(cleanQuote(raw)).toBe(cleanedInPasses(raw));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (raw) => {
        expect(cleanQuote(raw)).toBe(cleanedInPasses(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('removes glued headings, markers and citation tags', () => {
    expect(cleanQuote('## Refunds\n- Refunds take  14 days [source: S1].')).toBe(
      'Refunds take 14 days.',
    );
    expect(cleanQuote('Plain sentence with one space each.')).toBe(
      'Plain sentence with one space each.',
    );
  });
});

describe('source candidates', () => {
  it('share one object shape whatever fields their sentences hold', () => {
    const candidates = sourceSentences([
      {
        label: 'S1',
        title: 'Options',
        text: [
          'Retries are counted per request. The client retries as follows:',
          '',
          '```ts',
          'createClient({ retries: 2 });',
          '```',
          '',
          '| Option | Default |',
          '| --- | --- |',
          '| `retries` | 2 retries after the first attempt |',
        ].join('\n'),
      },
    ]);
    expect(candidates.map((candidate) => candidate.unit)).toEqual([
      'sentence',
      'sentence',
      'code',
      'row',
    ]);
    const keys = candidates.map((candidate) => Object.keys(candidate).join(','));
    expect(new Set(keys).size).toBe(1);
    expect(candidates[1]!.blockKind).toBe('code');
    expect(candidates[3]!.columns).toBe('Option — Default');
  });
});
