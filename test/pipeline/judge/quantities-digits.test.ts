import { afterEach, describe, expect, it, vi } from 'vitest';
import { quantitiesOf } from '../../../src/pipeline/judge/contradiction-quantities.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('quantitiesOf on a text without a digit', () => {
  it('returns no quantity without rewriting or scanning the text', () => {
    const replace = vi.spyOn(String.prototype, 'replace');
    const matchAll = vi.spyOn(String.prototype, 'matchAll');
    const sentences = [
      'Shipping is never refunded.',
      'Refunds take five business days, or twelve per cent of orders.',
      'The percentage points fell · sharply (see Figure II).',
      '',
    ];
    for (const sentence of sentences) expect(quantitiesOf(sentence)).toEqual([]);
    expect(replace).not.toHaveBeenCalled();
    expect(matchAll).not.toHaveBeenCalled();
  });

  it('reads a text with digits as before (values from the tree before the change)', () => {
    const text = 'Refunds take 5 business days; 3·0 million users, 12 percentage points.';
    expect(quantitiesOf(text)).toEqual([
      { low: 5, high: 5, unit: 'day', heads: ['business', 'day'], before: ['refund', 'tak'] },
      { low: 3, high: 3, unit: '', heads: ['user'], before: [] },
      { low: 12, high: 12, unit: 'point', heads: ['pp'], before: [] },
    ]);
  });
});
