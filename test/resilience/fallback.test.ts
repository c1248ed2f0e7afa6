import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FALLBACK_EMPTY,
  fallbackAnswer,
  summarizeSource,
} from '../../src/resilience/fallback.js';

const sources = [
  {
    label: 'S1',
    title: 'Handbook',
    text: '# Refunds\n\nRefunds are issued within 14 days of purchase. Digital goods are refunded only when unused. Contact support for anything else.',
  },
  {
    label: 'S2',
    text: 'Shipping takes 3 to 5 business days [source: S9]. Express shipping costs extra.',
  },
];

describe('fallbackAnswer', () => {
  it('follows the spec template with the first sentences of each source and its citation', () => {
    expect(fallbackAnswer(sources)).toBe(
      'Temporary issue generating response. Here are the relevant documents summary:\n\n' +
        '- Handbook: Refunds are issued within 14 days of purchase. Digital goods are refunded only when unused. [source: S1]\n' +
        '- Shipping takes 3 to 5 business days. Express shipping costs extra. [source: S2]',
    );
  });

  it('is deterministic', () => {
    expect(fallbackAnswer(sources)).toBe(fallbackAnswer(sources));
  });

  it('gives an honest short message without sources', () => {
    expect(fallbackAnswer([])).toBe(DEFAULT_FALLBACK_EMPTY);
    expect(fallbackAnswer([{ label: 'S1', text: '   ' }])).toBe(DEFAULT_FALLBACK_EMPTY);
    expect(fallbackAnswer([], undefined, { empty: 'Nothing to show.' })).toBe('Nothing to show.');
  });

  it('fills a custom template, or appends the summary to one without a placeholder', () => {
    const one = [sources[1]!];
    expect(fallbackAnswer(one, 'Model down. {{summary}} (sorry, $1)')).toBe(
      'Model down. - Shipping takes 3 to 5 business days. Express shipping costs extra. [source: S2] (sorry, $1)',
    );
    expect(fallbackAnswer(one, 'Model down.')).toBe(
      'Model down.\n\n- Shipping takes 3 to 5 business days. Express shipping costs extra. [source: S2]',
    );
  });

  it('bounds each quote and the number of sources', () => {
    const long = { label: 'S1', text: `${'word '.repeat(200)}end.` };
    const line = fallbackAnswer([long], '{{summary}}');
    expect(line.length).toBeLessThan(260);
    expect(line).toMatch(/… \[source: S1\]$/);
    const many = Array.from({ length: 9 }, (_, index) => ({
      label: `S${index + 1}`,
      text: `Fact number ${index + 1} is here.`,
    }));
    expect(fallbackAnswer(many, '{{summary}}').split('\n')).toHaveLength(5);
    expect(fallbackAnswer(many, '{{summary}}', { maxSources: 2 }).split('\n')).toHaveLength(2);
  });

  it('never repeats citation tags found in the source text', () => {
    expect(summarizeSource('Shipping is free [source: S7]. Really free.')).toBe(
      'Shipping is free. Really free.',
    );
  });
});
