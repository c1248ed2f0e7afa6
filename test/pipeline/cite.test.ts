import { describe, expect, it } from 'vitest';
import { createCitationFilter, validateCitations } from '../../src/pipeline/cite.js';

describe('validateCitations', () => {
  it('keeps tags naming retrieved sources and removes the rest with their leading space', () => {
    const { text, report } = validateCitations(
      'Refunds take 14 days [source: S1]. Made up [source: S9]. Mixed [source: S2, S7].',
      ['S1', 'S2'],
    );
    expect(text).toBe('Refunds take 14 days [source: S1]. Made up. Mixed [source: S2].');
    expect(report).toEqual({
      generatedIds: ['S1', 'S9', 'S2', 'S7'],
      validIds: ['S1', 'S2'],
      removed: ['S9', 'S7'],
    });
  });

  it('normalises spacing and case of valid tags and leaves other brackets alone', () => {
    const { text } = validateCitations('See [link](x) and [Source:S1] and [1].', ['S1']);
    expect(text).toBe('See [link](x) and [source: S1] and [1].');
  });

  it('matches labels in any case and writes them as the label', () => {
    const { text, report } = validateCitations('Refunds take 14 days [source: s1, S2].', [
      'S1',
      'S2',
    ]);
    expect(text).toBe('Refunds take 14 days [source: S1, S2].');
    expect(report).toEqual({ generatedIds: ['S1', 'S2'], validIds: ['S1', 'S2'], removed: [] });
  });

  it('removes a tag naming anything that is not a label (a chunk id, a path)', () => {
    const { text, report } = validateCitations(
      'Refunds take 14 days [source: refunds#0]. Ships fast [source: docs/shipping.md].',
      ['S1'],
    );
    expect(text).toBe('Refunds take 14 days. Ships fast.');
    expect(report.removed).toEqual(['refunds#0', 'docs/shipping.md']);
  });

  it('rewrites an alias (a chunk id) to its label, once per tag', () => {
    const aliases = new Map([
      ['refunds#0', 'S1'],
      ['ghost#1', 'S9'],
    ]);
    const { text, report } = validateCitations(
      'Refunds take 14 days [source: Refunds#0, S1]. Ghost [source: ghost#1].',
      ['S1'],
      { aliases },
    );
    expect(text).toBe('Refunds take 14 days [source: S1]. Ghost.');
    expect(report.validIds).toEqual(['S1']);
    expect(report.removed).toEqual(['ghost#1']);
  });

  it('reports nothing when nothing is cited', () => {
    expect(validateCitations('Plain answer.', ['S1']).report.generatedIds).toEqual([]);
  });
});

describe('createCitationFilter (streaming) with ids of any shape', () => {
  it('holds a chunk-id tag split across deltas and removes it whole', () => {
    const filter = createCitationFilter(['S1']);
    const out = ['Fast [sou', 'rce: refu', 'nds#0] and [source: s', '1].'].map((piece) =>
      filter.push(piece),
    );
    expect(out.join('') + filter.flush()).toBe('Fast and [source: S1].');
  });
});

describe('createCitationFilter (streaming)', () => {
  const run = (pieces: string[], valid: string[]) => {
    const filter = createCitationFilter(valid);
    const emitted = pieces.map((piece) => filter.push(piece));
    emitted.push(filter.flush());
    return { emitted, text: emitted.join(''), report: filter.report() };
  };

  it('holds a partial tag back until it is complete, never emitting an invalid one', () => {
    const { emitted, text } = run(['Fact [sou', 'rce: S', '9]. More [source: S1', '].'], ['S1']);
    expect(emitted.some((piece) => piece.includes('S9'))).toBe(false);
    expect(text).toBe('Fact. More [source: S1].');
  });

  it('gives the same text as the whole-answer path for any split', () => {
    const answer = 'A [source: S1]. B [source: S3] and [source: S2]. [not a tag] end [source: X]';
    const whole = validateCitations(answer, ['S1', 'S2']).text;
    for (let size = 1; size <= 7; size++) {
      const pieces = answer.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
      expect(run(pieces, ['S1', 'S2']).text).toBe(whole);
    }
  });

  it('drops an unfinished tag at the end of the stream', () => {
    expect(run(['Done [source: S'], ['S1']).text).toBe('Done');
  });

  it('lets a long bracketed text through once it cannot be a tag', () => {
    expect(run(['[', 'x] y'], []).text).toBe('[x] y');
  });
});
